package org.ysuite.zmq;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import org.ysuite.zmq.internal.Messages;
import org.ysuite.zmq.internal.Peer;
import org.ysuite.zmq.internal.SocketOptions;

/**
 * ROUTER: each peer has a routing id (its Identity, or one made up); a message received is prefixed with
 * its peer's id, and a message sent goes to the peer its first frame names (libzmq's {@code router_t}).
 * An unknown id or a full peer drops the message, or with routerMandatory throws EHOSTUNREACH / waits.
 */
final class RouterRules extends SocketRules {

    private final SocketOptions options;
    private final Map<ByteBuffer, Peer> byRoutingId = new HashMap<>();
    private int nextRoutingId = ThreadLocalRandom.current().nextInt();

    RouterRules(SocketOptions options, Set<Peer> live) {
        super(SocketType.ROUTER, live, true, false);
        this.options = options;
    }

    @Override
    boolean trySend(Object message) {
        if (!(message instanceof byte[][] m)) {
            return true; // a routing id alone: nothing to send, as libzmq drops it
        }
        Peer p = byRoutingId.get(ByteBuffer.wrap(m[0]));
        if (p == null) {
            if (options.routerMandatory) {
                throw new ZmqException(ZmqError.EHOSTUNREACH, "ROUTER: no peer with routing id "
                        + hex(m[0]) + " (routerMandatory)");
            }
            return true;
        }
        if (!(options.routerMandatory ? p.out.tryReserve() : p.out.hasRoom())) {
            return !options.routerMandatory; // dropped at the mark unless mandatory, which waits
        }
        p.out.write(Messages.from(m, 1));
        return true;
    }

    @Override
    boolean canSend() {
        return true;
    }

    @Override
    Object tryReceive() {
        Object m = in.receive();
        return m == null ? null : Messages.prepend(in.last().routingId, m);
    }

    @Override
    void attached(Peer peer) {
        super.attached(peer);
        byte[] id = peer.identity;
        if (id.length == 0 || byRoutingId.containsKey(ByteBuffer.wrap(id))) {
            int n = nextRoutingId++;
            id = new byte[] {0, (byte) (n >>> 24), (byte) (n >>> 16), (byte) (n >>> 8), (byte) n};
        }
        peer.routingId = id;
        byRoutingId.put(ByteBuffer.wrap(id), peer);
    }

    @Override
    void detached(Peer peer) {
        super.detached(peer);
        if (peer.routingId != null) {
            byRoutingId.remove(ByteBuffer.wrap(peer.routingId), peer);
        }
    }

    private static String hex(byte[] b) {
        StringBuilder sb = new StringBuilder("0x");
        for (byte x : b) {
            sb.append(String.format("%02x", x));
        }
        return sb.toString();
    }
}
