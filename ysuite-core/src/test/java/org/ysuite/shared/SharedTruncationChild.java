package org.ysuite.shared;

import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.ysuite.internal.SharedPipeDescriptor;

/**
 * The child JVM of {@link SharedYPipeTruncationTest}: {@code SharedTruncationChild <dir> <0|half>}
 * opens both sides of a pipe in {@code dir}, streams messages from a writer thread to a reader
 * thread, truncates the file from another handle (to 0 bytes, or to half its size), and checks
 * that each thread ends with the documented exception (the reader may also see the clean end:
 * the writer's close still marks it when the header survived; a writer waiting for space may
 * learn of the reader's close first), that closing throws nothing,
 * and that another pipe in the same JVM still works. Prints {@code OK ...} and exits 0, or says
 * what went wrong and exits non-zero. A JVM crash is an exit status from the signal (and an
 * hs_err file).
 */
public final class SharedTruncationChild {

    private static final int CAPACITY = 1 << 16;

    private SharedTruncationChild() {
    }

    /**
     * The child's entry point.
     *
     * @param args the directory, and how far to cut: {@code 0} or {@code half}
     * @throws Exception on a failure of the setup
     */
    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        Path victim = dir.resolve("victim");
        long cutTo = "0".equals(args[1]) ? 0 : (SharedPipeDescriptor.HEADER_SIZE + CAPACITY) / 2;
        SharedPipeWriter out = SharedYPipe.builder(victim).capacity(CAPACITY).peerCheck(50, TimeUnit.MILLISECONDS)
                .createWriter();
        SharedPipeReader in = SharedYPipe.builder(victim).peerCheck(50, TimeUnit.MILLISECONDS).openReader();
        AtomicLong received = new AtomicLong();
        CountDownLatch enough = new CountDownLatch(1);
        AtomicReference<Throwable> writerEnd = new AtomicReference<>();
        AtomicReference<Object> readerEnd = new AtomicReference<>();
        Thread writer = new Thread(() -> {
            SharedMessages messages = new SharedMessages(1, 600);
            try {
                for (long seq = 0; ; seq++) {
                    int length = messages.make(seq);
                    while (!out.write(messages.bytes(), 0, length, false)) {
                        out.flush();
                        out.awaitSpace(length);
                    }
                    if ((seq & 7) == 0) {
                        out.flush();
                    }
                }
            } catch (Throwable t) {
                writerEnd.set(t);
            } finally {
                out.close();
            }
        }, "writer");
        Thread reader = new Thread(() -> {
            try {
                while (in.awaitMessage()) {
                    received.addAndGet(in.readBatch((b, off, len) -> { }));
                    if (received.get() >= 2000) {
                        enough.countDown();
                    }
                }
                readerEnd.set("end of stream");
            } catch (Throwable t) {
                readerEnd.set(t);
            } finally {
                in.close();
            }
        }, "reader");
        writer.start();
        reader.start();
        if (!enough.await(60, TimeUnit.SECONDS)) {
            fail(3, "the reader did not get 2000 messages in 60 s");
        }
        try (FileChannel ch = FileChannel.open(victim, StandardOpenOption.WRITE)) {
            ch.truncate(cutTo);
        }
        writer.join(60_000);
        reader.join(60_000);
        if (writer.isAlive() || reader.isAlive()) {
            fail(4, "a thread still runs 60 s after the truncation: writer " + writer.isAlive()
                    + " (ended by " + describe(writerEnd.get()) + ", its guard word "
                    + Long.toHexString((long) SharedPipeEnd.SIDE.getVolatile(out)) + "), reader "
                    + reader.isAlive() + " (guard word " + Long.toHexString((long) SharedPipeEnd.SIDE.getVolatile(in))
                    + ")");
        }
        String r = outcome(readerEnd.get());
        String w = outcome(writerEnd.get());
        if (w == null && r != null && writerEnd.get() instanceof PeerGoneException) {
            // The reader met the truncation first and closed; a writer waiting for space (its
            // ring full) learns of that close first: the documented end of a closed peer.
            w = "reader-closed";
        }
        if (w == null || (r == null && !"end of stream".equals(readerEnd.get()))) {
            for (Object end : new Object[] {writerEnd.get(), readerEnd.get()}) {
                if (end instanceof Throwable) {
                    ((Throwable) end).printStackTrace(System.out);
                }
            }
            fail(2, "undocumented ends: writer " + writerEnd.get() + ", reader " + readerEnd.get());
        }
        out.close(); // again: idempotent, never throws
        in.close();
        Path other = dir.resolve("other");
        try (SharedPipeWriter o = SharedYPipe.createWriter(other, 4096); SharedPipeReader i = SharedYPipe.openReader(other)) {
            o.write(new byte[] {42});
            o.flush();
            byte[] dst = new byte[1];
            if (!i.awaitMessage(10, TimeUnit.SECONDS) || i.read(dst) != 1 || dst[0] != 42) {
                fail(5, "another pipe does not work after the truncation");
            }
        }
        System.out.println("OK writer=" + w + " reader=" + (r == null ? readerEnd.get() : r)
                + " received=" + received.get());
    }

    /**
     * "truncated" for the documented exception; on JDK 17-20 also "late-fault" for the JVM's own
     * InternalError delivered after the operation returned (a fault in a bulk copy is reported at
     * the thread's next transition into the VM there; from JDK 21 the JVM delivers it at once, as
     * tried on 25); null for anything else.
     */
    private static String outcome(Object end) {
        if (end instanceof IllegalStateException && String.valueOf(((Throwable) end).getMessage()).contains("truncated")) {
            return "truncated";
        }
        if (end instanceof InternalError && Runtime.version().feature() < 21
                && String.valueOf(((Throwable) end).getMessage()).contains("fault occurred")) {
            return "late-fault";
        }
        return null;
    }

    private static String describe(Object end) {
        if (!(end instanceof Throwable)) {
            return String.valueOf(end);
        }
        java.io.StringWriter trace = new java.io.StringWriter();
        ((Throwable) end).printStackTrace(new java.io.PrintWriter(trace));
        return trace.toString();
    }

    private static void fail(int status, String why) {
        System.out.println("FAIL " + why);
        System.out.flush();
        Runtime.getRuntime().halt(status);
    }
}
