package org.ysuite.bench.ipc;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The transports of the {@code ipc} benchmarks, named by a spec string that the benchmark's
 * state and the {@link IpcChild} command line share: {@code ysuite:<spins>} (a pair of
 * {@link org.ysuite.shared.SharedYPipe}s, see {@link YsuiteLink}; {@code ysuite-epoll:<spins>} the same with
 * the readers waiting in {@code epoll_wait}), {@code unix} (a blocking AF_UNIX
 * {@code SocketChannel}, length-prefixed frames), {@code aeron:busyspin},
 * {@code aeron:backoff} or {@code aeron:sleep1ms} (Aeron IPC with that idle strategy, the
 * media driver embedded in the parent).
 */
final class Links {

    private Links() {
    }

    /**
     * The parent's half, made before the child starts.
     *
     * @param spec the transport
     * @param dir a fresh directory (under {@code /dev/shm}) that both processes can reach
     * @return the pending half
     * @throws IOException if it cannot be set up
     */
    static Link.Pending listen(String spec, Path dir) throws IOException {
        String[] p = spec.split(":", 2);
        switch (p[0]) {
            case "ysuite":
            case "ysuite-epoll":
                return YsuiteLink.listen(dir, p.length > 1 ? p[1] : "0", p[0].equals("ysuite-epoll"));
            case "unix":
                return UnixLink.listen(dir);
            case "aeron":
                return AeronLink.listen(dir, p.length > 1 ? p[1] : "");
            default:
                throw new IllegalArgumentException("unknown ipc transport: " + spec);
        }
    }

    /**
     * The child's end, connected to the parent's pending half.
     *
     * @param spec the transport, as given to {@link #listen}
     * @param dir the parent's directory
     * @return the child's end
     * @throws IOException if it cannot connect
     */
    static Link connect(String spec, Path dir) throws IOException {
        String[] p = spec.split(":", 2);
        switch (p[0]) {
            case "ysuite":
            case "ysuite-epoll":
                return YsuiteLink.connect(dir, p.length > 1 ? p[1] : "0", p[0].equals("ysuite-epoll"));
            case "unix":
                return UnixLink.connect(dir);
            case "aeron":
                return AeronLink.connect(dir, p.length > 1 ? p[1] : "");
            default:
                throw new IllegalArgumentException("unknown ipc transport: " + spec);
        }
    }
}
