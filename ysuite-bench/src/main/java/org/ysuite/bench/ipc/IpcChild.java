package org.ysuite.bench.ipc;

import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * The other process of the {@code ipc} benchmarks:
 * {@code IpcChild <transport> <dir> <ackEvery>}. It connects to the benchmark's end of the link
 * ({@link Links#connect}), prints {@code READY}, and serves on a thread named {@value #READER}
 * (so the benchmark can read that thread's CPU time): a message whose first byte is
 * {@link #ECHO} goes back as it is; the others are counted, and every {@code ackEvery} of them
 * the count goes back (8 bytes) as the sender's credit. When the benchmark closes its end it prints
 * {@code END <count>} and exits 0; on a failure it prints the stack trace and exits 1.
 */
public final class IpcChild {

    /** Name of the serving thread (the idle-CPU benchmark looks it up in {@code /proc}). */
    static final String READER = "ipc-reader";

    /** First byte of a message to echo. */
    static final byte ECHO = 'E';

    private IpcChild() {
    }

    /**
     * Runs the child.
     *
     * @param args {@code <transport> <dir> <ackEvery>}
     * @throws Exception if the serving thread cannot be joined
     */
    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: IpcChild <transport> <dir> <ackEvery>");
            System.exit(2);
        }
        int[] status = {1};
        Thread reader = new Thread(() -> status[0] = serve(args[0], Paths.get(args[1]),
                Integer.parseInt(args[2]), System.out), READER);
        reader.start();
        reader.join();
        System.exit(status[0]);
    }

    static int serve(String spec, Path dir, int ackEvery, PrintStream out) {
        long count = 0;
        try (Link link = Links.connect(spec, dir)) {
            out.println("READY");
            out.flush();
            byte[] buf = new byte[Link.MAX_MESSAGE];
            byte[] ack = new byte[8];
            ByteBuffer ackView = ByteBuffer.wrap(ack);
            int n;
            while ((n = link.receive(buf)) >= 0) {
                if (n > 0 && buf[0] == ECHO) {
                    link.send(buf, n);
                } else if (++count % ackEvery == 0) {
                    ackView.putLong(0, count);
                    link.send(ack, 8);
                }
            }
            link.closeOutput();
            out.println("END " + count);
            out.flush();
            return 0;
        } catch (Exception | Error e) {
            System.err.println("IpcChild " + spec + ": failed after " + count + " counted messages");
            e.printStackTrace();
            return 1;
        }
    }
}
