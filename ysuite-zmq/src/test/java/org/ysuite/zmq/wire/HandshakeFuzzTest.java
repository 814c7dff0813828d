package org.ysuite.zmq.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.ysuite.zmq.wire.ZmtpWire.ascii;
import static org.ysuite.zmq.wire.ZmtpWire.command;
import static org.ysuite.zmq.wire.ZmtpWire.concat;
import static org.ysuite.zmq.wire.ZmtpWire.greeting;
import static org.ysuite.zmq.wire.ZmtpWire.message;
import static org.ysuite.zmq.wire.ZmtpWire.property;

import io.netty.util.ResourceLeakDetector;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.ysuite.zmq.SocketType;

/**
 * Hostile handshakes, generated: the greeting and every NULL (RFC 23) and PLAIN (RFC 24) handshake
 * command, on both sides of each mechanism, replaced or followed by random bytes, cut short at a random
 * point, with metadata (or PLAIN credentials) announcing more than the command carries, with a message
 * before READY, or with a few bytes of a valid handshake overwritten; each fed in one read or in random
 * pieces. For every one: the engine never throws out of the pipeline, ends the connection exactly once
 * with a reason (at the latest when the handshake interval passes on the channel's frozen clock) unless
 * a mutation happened to leave a valid handshake, cancels any ZAP request it left unanswered, and leaks no
 * buffer ({@link EngineHarness} counts every byte; Netty's leak detector runs at PARANOID here too).
 *
 * <p>{@code -Dysuite.fuzz.handshakes=N} sets the number (default and CI: 10,000: 8 to 12 s on 2 cores at
 * load 12 to 17, the leak detector at PARANOID); {@code -Dysuite.fuzz.seed=S} replays a run (each failure
 * names its seed and case).
 */
class HandshakeFuzzTest {

    private static final int HANDSHAKES = Integer.getInteger("ysuite.fuzz.handshakes", 10_000);
    private static final long SEED = Long.getLong("ysuite.fuzz.seed", 0x5EED_2026L);
    private static final int HANDSHAKE_MILLIS = 1000;

    private static ResourceLeakDetector.Level leakLevel;

    /** Which side of which mechanism the engine under test plays. */
    enum Role { NULL_SERVER, NULL_CLIENT, PLAIN_SERVER, PLAIN_CLIENT }

    /** What the hostile peer does. */
    enum Attack { RANDOM, GREETING_THEN_RANDOM, TRUNCATED, OVERSTATED_LENGTH, MESSAGE_BEFORE_READY, MUTATED }

    @BeforeAll
    static void paranoid() {
        leakLevel = ResourceLeakDetector.getLevel();
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
    }

    @AfterAll
    static void restore() {
        ResourceLeakDetector.setLevel(leakLevel);
    }

    /** An authenticator that holds each request until the fuzzer answers it (or the engine cancels it). */
    static final class Zap implements ZmtpAuthenticator {
        final List<Consumer<Reply>> pending = new ArrayList<>();
        /** Per request: answered or cancelled (a cancel after the answer is harmless and allowed). */
        final List<boolean[]> settled = new ArrayList<>();

        @Override
        public Runnable authenticate(Request request, Consumer<Reply> reply) {
            boolean[] done = new boolean[1];
            settled.add(done);
            pending.add(a -> {
                done[0] = true;
                reply.accept(a);
            });
            return () -> done[0] = true;
        }

        void answerAll(boolean allow) {
            for (Consumer<Reply> r : List.copyOf(pending)) {
                r.accept(allow ? new Reply("200", "OK", ascii("u"), new byte[0]) : Reply.refused("400", "no"));
            }
            pending.clear();
        }

        boolean allSettled() {
            return settled.stream().allMatch(d -> d[0]);
        }
    }

    private static ZmtpOptions options(Role role, Zap zap) {
        switch (role) {
            case NULL_SERVER:
                return new ZmtpOptions(SocketType.PULL, new byte[0], -1, 0, 0, 0, HANDSHAKE_MILLIS, true, ZmtpSecurity.NULL);
            case NULL_CLIENT:
                return new ZmtpOptions(SocketType.PUSH, new byte[0], -1, 0, 0, 0, HANDSHAKE_MILLIS, false, ZmtpSecurity.NULL);
            case PLAIN_SERVER:
                return new ZmtpOptions(SocketType.PULL, new byte[0], -1, 0, 0, 0, HANDSHAKE_MILLIS, true,
                        ZmtpSecurity.plainServer("fuzz", zap));
            default:
                return new ZmtpOptions(SocketType.PUSH, new byte[0], -1, 0, 0, 0, HANDSHAKE_MILLIS, false,
                        ZmtpSecurity.plainClient("alice", "secret"));
        }
    }

    /** The peer's greeting for {@code role}'s engine. */
    private static byte[] peerGreeting(Role role) {
        boolean plain = role == Role.PLAIN_SERVER || role == Role.PLAIN_CLIENT;
        boolean peerIsServer = role == Role.NULL_CLIENT || role == Role.PLAIN_CLIENT;
        return greeting(3, 1, plain ? "PLAIN" : "NULL", peerIsServer);
    }

    /** The valid peer's commands after the greeting, the last one carrying the metadata. */
    private static List<byte[]> peerCommands(Role role, byte[] metadata) {
        switch (role) {
            case NULL_SERVER: return List.of(command("READY", metadata));
            case NULL_CLIENT: return List.of(command("READY", metadata));
            case PLAIN_SERVER: return List.of(command("HELLO", concat(new byte[] {5}, ascii("alice"), new byte[] {6},
                    ascii("secret"))), command("INITIATE", metadata));
            default: return List.of(command("WELCOME", new byte[0]), command("READY", metadata));
        }
    }

    private static String peerType(Role role) {
        return role == Role.NULL_SERVER || role == Role.PLAIN_SERVER ? "PUSH" : "PULL";
    }

    private static byte[] random(SplittableRandom r, int min, int max) {
        byte[] b = new byte[r.nextInt(min, max + 1)];
        r.nextBytes(b);
        return b;
    }

    /** One hostile peer's bytes. */
    static byte[] hostile(Role role, Attack attack, SplittableRandom r) {
        byte[] greeting = peerGreeting(role);
        byte[] goodMetadata = property("Socket-Type", ascii(peerType(role)));
        List<byte[]> good = peerCommands(role, goodMetadata);
        byte[] whole = concat(greeting, concat(good.toArray(new byte[0][])));
        byte[] prefix = concat(greeting, concat(good.subList(0, r.nextInt(good.size())).toArray(new byte[0][])));
        switch (attack) {
            case RANDOM:
                return random(r, 0, 300);
            case GREETING_THEN_RANDOM:
                return concat(greeting, random(r, 1, 300));
            case TRUNCATED:
                return java.util.Arrays.copyOf(whole, r.nextInt(whole.length));
            case OVERSTATED_LENGTH: {
                byte[] value = ascii(peerType(role));
                if (role == Role.PLAIN_SERVER && r.nextBoolean()) {
                    // HELLO whose username or password length runs past the end of the command
                    byte[] hello = r.nextBoolean()
                            ? concat(new byte[] {(byte) r.nextInt(6, 256)}, ascii("alice"))
                            : concat(new byte[] {5}, ascii("alice"), new byte[] {(byte) r.nextInt(7, 256)}, ascii("secret"));
                    return concat(greeting, command("HELLO", hello));
                }
                int announced = value.length + 1 + r.nextInt(Integer.MAX_VALUE - value.length - 1);
                byte[] lying = concat(new byte[] {11}, ascii("Socket-Type"), ByteBuffer.allocate(4).putInt(announced).array(), value);
                List<byte[]> cmds = peerCommands(role, lying);
                return concat(greeting, concat(cmds.toArray(new byte[0][])));
            }
            case MESSAGE_BEFORE_READY:
                return concat(prefix, message(random(r, 0, 40), r.nextBoolean()));
            default: {
                byte[] m = whole.clone();
                for (int n = r.nextInt(1, 5); n > 0; n--) {
                    m[r.nextInt(m.length)] = (byte) r.nextInt(256);
                }
                return m;
            }
        }
    }

    @Test
    void hostileHandshakesEndOnceWithAReasonAndLeakNothing() {
        Map<Attack, int[]> ended = new EnumMap<>(Attack.class);
        int mutatedValid = 0;
        for (int i = 0; i < HANDSHAKES; i++) {
            SplittableRandom r = new SplittableRandom(SEED + i);
            Role role = Role.values()[r.nextInt(Role.values().length)];
            Attack attack = Attack.values()[r.nextInt(Attack.values().length)];
            byte[] bytes = hostile(role, attack, r);
            String what = "case " + i + " (seed " + (SEED + i) + "): " + role + " " + attack + " "
                    + HexFormat.of().formatHex(bytes);
            Zap zap = new Zap();
            try (EngineHarness h = new EngineHarness(options(role, zap))) {
                feed(h, bytes, r);
                zap.answerAll(r.nextBoolean());
                h.channel.runPendingTasks();
                h.channel.advanceTimeBy(HANDSHAKE_MILLIS + 1, TimeUnit.MILLISECONDS);
                h.channel.runScheduledPendingTasks();
                h.channel.runPendingTasks();
                h.written();
                List<String> reasons = h.listener.closedReasons();
                int ready = h.listener.readyCount();
                if (ready == 1 && attack == Attack.MUTATED) {
                    mutatedValid++; // a byte of the filler or a value changed: still a valid handshake
                } else {
                    assertEquals(0, ready, what);
                    assertFalse(h.channel.isOpen(), "still open after the handshake interval: " + what);
                    assertEquals(1, reasons.size(), "not ended exactly once: " + reasons + " " + what);
                    assertTrue(reasons.get(0) != null && !reasons.get(0).isBlank(), what);
                    ended.computeIfAbsent(attack, a -> new int[1])[0]++;
                }
                assertTrue(zap.allSettled(), "a ZAP request neither answered nor cancelled: " + what);
            } catch (AssertionError e) {
                throw e;
            } catch (RuntimeException e) {
                fail("the engine threw out of the pipeline: " + what, e);
            }
        }
        int total = ended.values().stream().mapToInt(a -> a[0]).sum();
        assertEquals(HANDSHAKES, total + mutatedValid);
        for (Attack a : Attack.values()) {
            assertTrue(ended.containsKey(a) && ended.get(a)[0] > 0, "no " + a + " case ended: " + HANDSHAKES + " too few");
        }
    }

    /** Feeds in one read or in random pieces, stopping once the engine has closed the channel. */
    private static void feed(EngineHarness h, byte[] bytes, SplittableRandom r) {
        if (bytes.length == 0) {
            return;
        }
        if (r.nextBoolean()) {
            h.feed(bytes);
            return;
        }
        for (int at = 0; at < bytes.length && h.channel.isOpen(); ) {
            int n = Math.min(bytes.length - at, r.nextInt(1, 80));
            h.feed(java.util.Arrays.copyOfRange(bytes, at, at + n));
            at += n;
        }
    }

    @Test
    void theGeneratorMakesValidHandshakesWhenNotHostile() {
        // the fuzzer's notion of a valid handshake is right: each role's unmodified peer gets the engine ready
        for (Role role : Role.values()) {
            Zap zap = new Zap();
            try (EngineHarness h = new EngineHarness(options(role, zap))) {
                List<byte[]> cmds = peerCommands(role, property("Socket-Type", ascii(peerType(role))));
                h.feed(peerGreeting(role));
                for (byte[] c : cmds) {
                    h.feed(c);
                    zap.answerAll(true);
                    h.channel.runPendingTasks();
                }
                h.written();
                assertEquals(1, h.listener.readyCount(), role + ": " + h.listener.closedReasons());
            }
        }
    }
}
