package org.ysuite.zmq;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.ysuite.Signaler;
import org.ysuite.zmq.wire.ZmtpAuthenticator;

/**
 * A context's ZAP client (ZeroMQ RFC 27), as libzmq's: PLAIN and CURVE servers (and NULL sockets with a
 * ZAP domain) ask the handler the user binds at
 * {@code inproc://zeromq.zap.01} (a REP or ROUTER socket of the same context) through one DEALER socket.
 *
 * <p>Request frames: an empty delimiter, {@code "1.0"}, the request id, the domain, the peer's address, the
 * server socket's routing id, the mechanism, then the credentials (PLAIN: username, password; CURVE: the
 * client's 32-byte public key; NULL: none). Reply
 * frames: the delimiter, {@code "1.0"}, the request id, the status code ({@code 200/300/400/500}), the
 * status text, the user id, the metadata. A malformed reply refuses that peer with 500.
 *
 * <p>With no handler bound when a client's HELLO arrives, a PLAIN client is refused (status 500), as libzmq
 * 4.3 refuses PLAIN clients without a ZAP handler; CURVE and NULL servers check {@link #available()} first
 * and, as libzmq 4.3, let the peer in without asking.
 *
 * <p><b>Threads.</b> The DEALER is used only under {@link #lock}, which gives each use a happens-before
 * edge to the next, as {@link ZmqSocket} asks of a socket handed between threads. Requests are sent with
 * {@link ZmqSocket#DONTWAIT} from the connection's I/O thread (never blocking it); replies are read on an
 * I/O thread of the context when the DEALER's signal fires, and handed to the waiting connection, which
 * resumes its handshake on its own loop. A request whose connection ended is forgotten; its late reply is
 * dropped.
 */
final class ZapClient implements ZmtpAuthenticator {

    /** The inproc name of the ZAP handler (RFC 27). */
    static final String ENDPOINT = "zeromq.zap.01";

    private final ZmqContext context;
    private final Object lock = new Object();
    private final Map<String, Consumer<Reply>> pending = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    /** Whether a read of the replies is scheduled and has not yet started. */
    private final AtomicBoolean drainScheduled = new AtomicBoolean();
    private ZmqSocket dealer;
    /** Set under the lock before the DEALER's signal is added; read by whichever thread fires that signal. */
    private volatile Executor executor;
    private boolean closed;

    ZapClient(ZmqContext context) {
        this.context = context;
    }

    /** Whether a handler is bound at {@code inproc://zeromq.zap.01}. */
    @Override
    public boolean available() {
        return context.inprocBound(ENDPOINT);
    }

    @Override
    public Runnable authenticate(Request request, Consumer<Reply> reply) {
        if (!context.inprocBound(ENDPOINT)) {
            reply.accept(Reply.refused("500", "no ZAP handler bound at inproc://" + ENDPOINT));
            return () -> { };
        }
        String id = Long.toString(ids.incrementAndGet());
        pending.put(id, reply);
        boolean sent;
        synchronized (lock) {
            try {
                sent = !closed && send(id, request);
            } catch (ZmqException e) {
                sent = false; // the context is closing
            }
        }
        if (!sent) {
            pending.remove(id);
            reply.accept(Reply.refused("300", "the ZAP handler at inproc://" + ENDPOINT
                    + " takes no more requests now"));
            return () -> { };
        }
        return () -> pending.remove(id);
    }

    /** Sends one request; false if the DEALER would block (no handler, or its queue full). Under the lock. */
    private boolean send(String id, Request r) {
        if (dealer == null) {
            executor = context.ioExecutor();
            dealer = context.socket(SocketType.DEALER);
            dealer.setLinger(0);
            dealer.addSignal(new Signaler() {
                @Override
                public void signal(int signal) {
                    scheduleDrain();
                }

                @Override
                public int capacity() {
                    return 1;
                }
            });
            dealer.connect("inproc://" + ENDPOINT);
        }
        List<byte[]> frames = new ArrayList<>();
        frames.add(new byte[0]);
        frames.add(ascii("1.0"));
        frames.add(ascii(id));
        frames.add(r.domain().getBytes(StandardCharsets.UTF_8));
        frames.add(ascii(r.address()));
        frames.add(r.identity());
        frames.add(ascii(r.mechanism()));
        frames.addAll(r.credentials());
        // every frame but the last is held by the socket; only the last send may say "would block"
        for (int i = 0; i < frames.size() - 1; i++) {
            dealer.send(frames.get(i), ZmqSocket.SNDMORE);
        }
        if (dealer.send(frames.get(frames.size() - 1), ZmqSocket.DONTWAIT)) {
            return true;
        }
        // the frames held for this request would prefix the next one: start again with a fresh DEALER
        dealer.close(0);
        dealer = null;
        return false;
    }

    private void scheduleDrain() {
        if (drainScheduled.compareAndSet(false, true)) {
            try {
                executor.execute(this::drain);
            } catch (RejectedExecutionException e) {
                drainScheduled.set(false); // the context is closing: nothing waits for replies any more
            }
        }
    }

    /** Reads every reply there is and hands each to its connection. */
    private void drain() {
        drainScheduled.set(false); // before reading: a reply arriving from now on schedules another read
        List<byte[]> frames = new ArrayList<>();
        synchronized (lock) {
            while (dealer != null && !closed) {
                byte[] first = dealer.receive(ZmqSocket.DONTWAIT);
                if (first == null) {
                    return;
                }
                frames.clear();
                frames.add(first);
                while (dealer.hasReceiveMore()) {
                    frames.add(dealer.receive(0));
                }
                reply(frames);
            }
        }
    }

    private void reply(List<byte[]> f) {
        Consumer<Reply> waiting = f.size() > 2 ? pending.remove(new String(f.get(2), StandardCharsets.UTF_8)) : null;
        if (waiting == null) {
            return; // the connection ended first, or an id we never sent
        }
        String code = f.size() == 7 ? new String(f.get(3), StandardCharsets.UTF_8) : "";
        if (f.size() != 7 || f.get(0).length != 0 || !"1.0".equals(new String(f.get(1), StandardCharsets.UTF_8))
                || !code.matches("[2345]00")) {
            waiting.accept(Reply.refused("500", "malformed ZAP reply: " + f.size()
                    + " frames (7 expected: delimiter, \"1.0\", id, a status code 200/300/400/500, text, user id,"
                    + " metadata)"));
            return;
        }
        waiting.accept(new Reply(code, new String(f.get(4), StandardCharsets.UTF_8), f.get(5), f.get(6)));
    }

    /** Closes the DEALER; later requests are refused. Idempotent. */
    void close() {
        synchronized (lock) {
            closed = true;
            if (dealer != null) {
                dealer.close(0);
                dealer = null;
            }
        }
        pending.clear();
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
