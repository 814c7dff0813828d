package org.ysuite.zmq;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A ZAP handler (ZeroMQ RFC 27) as a user writes one: a REP socket bound at {@code inproc://zeromq.zap.01}
 * in the server's context, on a thread of its own, allowing PLAIN clients whose username and password are
 * in {@code users} (200, user id = the username), CURVE clients whose public key (Z85) is in
 * {@code curveKeys} (user id = that key) and NULL peers whose address is in {@code nullAddresses}, and
 * refusing the rest (400). Passwords are compared in constant time. {@link #close()} stops the thread (it looks every 50 ms) and closes the socket.
 */
public final class ZapHandler implements AutoCloseable {

    private final ZmqSocket rep;
    private final Map<String, String> users;
    private final Set<String> curveKeys;
    private final Set<String> nullAddresses;
    private final Thread thread;
    private final List<List<String>> requests = new ArrayList<>();
    private volatile boolean running = true;

    /** Binds the handler in {@code ctx} and starts its thread. */
    public ZapHandler(ZmqContext ctx, Map<String, String> users) {
        this(ctx, users, Set.of(), Set.of());
    }

    /** Binds a handler that also knows CURVE keys (Z85) and NULL peers' addresses. */
    public ZapHandler(ZmqContext ctx, Map<String, String> users, Set<String> curveKeys, Set<String> nullAddresses) {
        this.users = Map.copyOf(users);
        this.curveKeys = Set.copyOf(curveKeys);
        this.nullAddresses = Set.copyOf(nullAddresses);
        this.rep = ctx.socket(SocketType.REP);
        rep.setReceiveTimeout(50);
        rep.setLinger(0);
        rep.bind("inproc://zeromq.zap.01");
        // handed to the thread: Thread.start is the happens-before edge ZmqSocket asks for
        this.thread = new Thread(this::serve, "zap-handler");
        thread.start();
    }

    private void serve() {
        try {
            while (running) {
                byte[] first = rep.receive(0);
                if (first == null) {
                    continue;
                }
                List<byte[]> f = new ArrayList<>();
                f.add(first);
                while (rep.hasReceiveMore()) {
                    f.add(rep.receive(0));
                }
                answer(f);
            }
        } catch (ZmqException e) {
            if (e.kind() != ZmqError.ETERM) {
                throw e;
            }
        } finally {
            rep.close();
        }
    }

    /** RFC 27: "1.0", id, domain, address, identity, mechanism, credentials... in; "1.0", id, code, text, user, metadata out. */
    private void answer(List<byte[]> f) {
        List<String> text = new ArrayList<>();
        boolean curve = f.size() == 7 && new String(f.get(5), StandardCharsets.UTF_8).equals("CURVE")
                && f.get(6).length == 32;
        for (int i = 0; i < f.size(); i++) {
            text.add(i == 7 ? "(password)" : curve && i == 6 ? Z85.encode(f.get(6))
                    : new String(f.get(i), StandardCharsets.UTF_8));
        }
        synchronized (requests) {
            requests.add(text);
        }
        boolean plain = f.size() == 8 && text.get(5).equals("PLAIN");
        String user = plain ? text.get(6) : "";
        String expected = users.get(user);
        boolean ok = plain && expected != null
                && MessageDigest.isEqual(expected.getBytes(StandardCharsets.UTF_8), f.get(7));
        if (curve) {
            user = text.get(6);
            ok = curveKeys.contains(user);
        } else if (f.size() == 6 && text.get(5).equals("NULL")) {
            ok = nullAddresses.contains(text.get(3));
        }
        rep.send(f.get(0), ZmqSocket.SNDMORE);
        rep.send(f.get(1), ZmqSocket.SNDMORE);
        rep.send(ok ? "200" : "400", ZmqSocket.SNDMORE);
        rep.send(ok ? "OK" : "bad credentials", ZmqSocket.SNDMORE);
        rep.send(ok ? user : "", ZmqSocket.SNDMORE);
        rep.send(new byte[0], 0);
    }

    /** The requests so far, each its frames as text (the password left out). */
    public List<List<String>> requests() {
        synchronized (requests) {
            return new ArrayList<>(requests);
        }
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        thread.join();
    }
}
