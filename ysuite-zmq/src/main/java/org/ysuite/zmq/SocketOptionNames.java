package org.ysuite.zmq;

import java.nio.charset.StandardCharsets;
import org.ysuite.zmq.internal.SocketOptions;

/**
 * {@link ZmqSocket#setOption} and {@link ZmqSocket#getOption}: libzmq's option names over the socket's
 * typed methods and its {@link SocketOptions}. Socket thread only.
 */
final class SocketOptionNames {

    private SocketOptionNames() {
    }

    /** Sets {@code name}: SUBSCRIBE/UNSUBSCRIBE on the socket, the rest in {@code options}. */
    static void set(ZmqSocket socket, SocketOptions options, String name, Object value) {
        String k = SocketOptions.key(name);
        if (k.equals("SUBSCRIBE") || k.equals("UNSUBSCRIBE")) {
            byte[] b = value instanceof String s ? s.getBytes(StandardCharsets.UTF_8) : (byte[]) value;
            if (k.equals("SUBSCRIBE")) {
                socket.subscribe(b);
            } else {
                socket.unsubscribe(b);
            }
            return;
        }
        if (!options.set(name, value)) {
            throw new ZmqException(ZmqError.EINVAL, "setOption: unknown option " + name);
        }
    }

    /** Reads {@code name}: TYPE, RCVMORE, LAST_ENDPOINT and FD from the socket, the rest from {@code options}. */
    static Object get(ZmqSocket socket, SocketOptions options, String name) {
        switch (SocketOptions.key(name)) {
            case "TYPE": return socket.type();
            case "RCVMORE": return socket.hasReceiveMore();
            case "LAST_ENDPOINT": return socket.lastEndpoint();
            case "FD": return socket.fd();
            default:
                Object v = options.get(name);
                if (v == null) {
                    throw new ZmqException(ZmqError.EINVAL, "getOption: unknown option " + name);
                }
                return v;
        }
    }
}
