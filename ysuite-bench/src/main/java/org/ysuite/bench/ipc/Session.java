package org.ysuite.bench.ipc;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Comparator;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.ysuite.bench.support.Msg;

/**
 * A link to an {@link IpcChild} process, owned by a JMH state: set up per trial (a fresh folder
 * under {@code /dev/shm}, the parent's end, the child, the link), torn down at the trial's end
 * (the parent closes its end, the child sees the end of the stream and exits, the folder is
 * deleted; a child that does not end within 10 s is killed, and one that exits with an error
 * fails the benchmark). A subclass ({@link Peers}) names the transport. The child echoes a
 * message whose first byte is {@link IpcChild#ECHO} ({@link #pingPong}) and counts the others
 * ({@link #push}).
 *
 * <p>The sender's credit ({@link #push}): the child acknowledges every {@link #ACK_EVERY}
 * messages with its count, and the sender may be at most {@link Msg#WINDOW} messages ahead of
 * the last count it has read; it reads counts only when the window is full, so the
 * acknowledgements cost it nothing while the reader keeps up.
 */
@State(Scope.Benchmark)
public abstract class Session {

    /** How often the counting child acknowledges. */
    static final int ACK_EVERY = Msg.WINDOW / 4;

    /** The parent's end of the link. */
    Link link;
    /** The child process. */
    ChildProcess child;
    /** The message sent to the counting child (its first {@code length} bytes). */
    final byte[] msg = new byte[Link.MAX_MESSAGE];
    /** The message the child echoes. */
    final byte[] echoMsg = new byte[Link.MAX_MESSAGE];
    /** Where replies and acknowledgements are read into. */
    final byte[] reply = new byte[Link.MAX_MESSAGE];
    private final ByteBuffer replyView = ByteBuffer.wrap(reply);
    private Path dir;
    private long sent;
    private long acked;

    private final String transport;

    /**
     * A session over a transport.
     *
     * @param transport the {@link Links} spec, or null if {@link #transport()} is overridden
     */
    protected Session(String transport) {
        this.transport = transport;
    }

    /**
     * The transport, as a {@link Links} spec.
     *
     * @return the spec
     */
    protected String transport() {
        return transport;
    }

    /**
     * Starts the child and connects.
     *
     * @throws IOException if either fails
     * @throws InterruptedException if interrupted while ending a child that failed to connect
     */
    @Setup(Level.Trial)
    public void setUp() throws IOException, InterruptedException {
        java.util.Arrays.fill(msg, (byte) 'y');
        java.util.Arrays.fill(echoMsg, IpcChild.ECHO);
        Path shm = Paths.get("/dev/shm");
        dir = Files.createTempDirectory(Files.isDirectory(shm) ? shm : Paths.get(System.getProperty("java.io.tmpdir")),
                "ysuite-ipc-");
        Link.Pending pending = Links.listen(transport(), dir);
        try {
            child = ChildProcess.start(IpcChild.class, transport(), dir.toString(), Integer.toString(ACK_EVERY));
            link = pending.accept();
        } catch (IOException | RuntimeException e) {
            pending.close();
            if (child != null) {
                child.stop();
            }
            deleteTree(dir);
            throw e;
        }
    }

    /**
     * Ends the link (both directions drained), waits for the child to end and deletes the folder.
     *
     * @throws Exception if the child failed or had to be killed
     */
    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        try {
            // End our direction, then read the child's until it ends its own (after END): closing
            // a socket with unread acknowledgements in it would reset the child's connection.
            link.closeOutput();
            while (link.receive(reply) >= 0) {
                // late acknowledgements
            }
            link.close();
            int exit = child.stop();
            if (exit != 0) {
                throw new IllegalStateException("the " + transport() + " child ended with " + exit
                        + " (-1: it had to be killed); its output is in JMH's log");
            }
        } finally {
            deleteTree(dir);
        }
    }

    /**
     * One round trip of an {@code length}-byte message (worst case: both sides asleep each time).
     *
     * @param length message size
     * @return the reply's length
     * @throws IOException if the link fails or the reply has another size
     */
    final int pingPong(int length) throws IOException {
        link.send(echoMsg, length);
        int n = link.receive(reply);
        if (n != length) {
            throw new IOException("reply of " + n + " bytes to a message of " + length);
        }
        return n;
    }

    /**
     * Sends one message to the counting child, within the credit window.
     *
     * @param length message size
     * @return messages sent so far
     * @throws IOException if the link fails
     */
    final long push(int length) throws IOException {
        if (sent - acked >= Msg.WINDOW) {
            awaitCredit();
        }
        link.send(msg, length);
        return ++sent;
    }

    private void awaitCredit() throws IOException {
        while (sent - acked >= Msg.WINDOW) {
            int n = link.receive(reply);
            if (n != 8) {
                throw new IOException("the child's acknowledgement is " + n + " bytes, not 8");
            }
            acked = replyView.getLong(0);
        }
    }

    /**
     * Sends {@code count} messages to the counting child and waits until it has acknowledged all
     * of them (the idle benchmark's burst before the idle period).
     *
     * @param count a multiple of {@link #ACK_EVERY}
     * @param length message size
     * @throws IOException if the link fails
     */
    final void pushAndDrain(int count, int length) throws IOException {
        for (int i = 0; i < count; i++) {
            push(length);
        }
        while (acked < sent) {
            int n = link.receive(reply);
            if (n != 8) {
                throw new IOException("the child's acknowledgement is " + n + " bytes, not 8");
            }
            acked = replyView.getLong(0);
        }
    }

    static void deleteTree(Path dir) throws IOException {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) all.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        }
    }
}
