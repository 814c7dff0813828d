package org.ysuite.shared;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.ysuite.internal.Futex;
import org.ysuite.internal.Membarrier;

/**
 * {@link SharedSignaler}'s steps on its one shared word (the jcstress races call exactly these).
 * {@code shared} is the mapped memory; the word is the {@code int} at {@code at}, and its address
 * is the futex's.
 *
 * <pre>
 *   bit 31     SLEEP: the owner is (going) asleep in FUTEX_WAIT on this word
 *   bits 0-30  the fired signal ids, not yet taken by the owner
 * </pre>
 *
 * <h2>Read-modify-writes on shared memory</h2>
 * The word lives in a sealed memfd ({@link org.ysuite.internal.Memfd}) that no process can
 * truncate, so its atomic read-modify-writes can never fault (on a truncatable file the VM's own
 * CAS code would crash the JVM; the shared pipe's words use loads and stores only for that reason).
 *
 * <h2>No lost wake-up</h2>
 * <b>Signal</b> ({@link #signal}): one CAS sets the id's bit and clears SLEEP; the signaller that
 * cleared SLEEP makes the one {@code FUTEX_WAKE}. <b>Sleep</b> ({@link #arm}, then
 * {@link #sleepIfArmed}): a CAS from exactly 0 to SLEEP (it fails if an id is fired), then
 * {@code FUTEX_WAIT(word, SLEEP)}: the kernel compares the word and queues the sleeper in one step,
 * so a signal's CAS either comes before the compare (the word is no longer SLEEP: no sleep) or its
 * wake comes after the sleeper is queued. All CASes on one word are totally ordered: a signal
 * either sees SLEEP (and wakes) or came before the arm (which then fails on its bit).
 *
 * <h2>The doorbell ({@link #ring})</h2>
 * For work that is not in this word (an Aeron log, another ring): the worker arms, looks at its
 * work once more, and only then sleeps; the producer publishes its work, then rings. A ring is a
 * full fence and a load while the worker is awake: either the worker's look after its arming CAS
 * sees the work, or the ringer's load after the fence sees SLEEP (each side's store is ordered
 * before its load: StoreLoad on both sides, Dekker's pattern); a ringer that sees SLEEP clears it
 * with a CAS, and only the one whose CAS did so calls {@code FUTEX_WAKE}.
 *
 * <h2>The doorbell without its fence ({@link #ringUnfenced})</h2>
 * The same Dekker pattern with the ringer's StoreLoad moved to the owner, which arms rarely (once
 * per idle period) while a publisher rings after every message: the owner's arm is followed by a
 * {@link Membarrier} that fences every running thread of the registered (sender) processes, so a
 * ring is one load of a cache line that stays shared while the owner is awake.
 */
final class SharedSignalerWords {

    /** The owner is (going) asleep. */
    static final int SLEEP = 1 << 31;
    /** The fired ids' bits. */
    static final int IDS = ~SLEEP;

    static final VarHandle INT = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.nativeOrder());

    private SharedSignalerWords() {
    }

    /**
     * Fires {@code bit}: sets it and clears SLEEP in one CAS.
     *
     * @return {@code true} if the owner was asleep and this call woke it
     */
    static boolean signal(ByteBuffer shared, int at, long address, int bit) {
        // always the CAS, even when the bit is already fired: it is the release that publishes
        // what the caller wrote before signalling to the owner's take
        int s = (int) INT.getVolatile(shared, at);
        for (;;) {
            int witness = (int) INT.compareAndExchange(shared, at, s, (s | bit) & IDS);
            if (witness == s) {
                break;
            }
            s = witness;
        }
        if ((s & SLEEP) != 0) {
            Futex.wake(address, Integer.MAX_VALUE);
            return true;
        }
        return false;
    }

    /**
     * The doorbell: after the caller published its work elsewhere, a full fence and one load;
     * wakes the owner only if it is asleep.
     *
     * @return {@code true} if the owner was asleep and this call woke it
     */
    static boolean ring(ByteBuffer shared, int at, long address) {
        VarHandle.fullFence(); // StoreLoad: the caller's publication before the load of SLEEP
        return ringUnfenced(shared, at, address);
    }

    /**
     * The doorbell without the fence, for a sender whose process is registered for
     * {@link Membarrier} while the owner arms with {@code fenceSenders} ({@link #arm(ByteBuffer,
     * int, boolean)}): one load while the owner is awake. The StoreLoad this ringer leaves out is
     * the owner's to pay: its barrier after the arming CAS runs a full fence on this thread if it
     * is running (else it passed one when switched out), so either this load comes after that
     * fence and sees SLEEP, or the caller's publication came before it and the owner's look after
     * the barrier sees the work. The load is a {@code getVolatile}, which HotSpot's compilers
     * never move above the caller's earlier release stores (a publication).
     *
     * @return {@code true} if the owner was asleep and this call woke it
     */
    static boolean ringUnfenced(ByteBuffer shared, int at, long address) {
        int s = (int) INT.getVolatile(shared, at);
        if ((s & SLEEP) == 0) {
            return false;
        }
        for (;;) {
            int witness = (int) INT.compareAndExchange(shared, at, s, s & IDS);
            if (witness == s) {
                Futex.wake(address, Integer.MAX_VALUE);
                return true;
            }
            if ((witness & SLEEP) == 0) {
                return false; // another ringer or signaller woke it
            }
            s = witness;
        }
    }

    /** The fired ids without taking them (a volatile load). */
    static int fired(ByteBuffer shared, int at) {
        return (int) INT.getVolatile(shared, at) & IDS;
    }

    /** Takes the fired ids (the owner, awake: SLEEP is clear). */
    static int take(ByteBuffer shared, int at) {
        if (((int) INT.getVolatile(shared, at) & IDS) == 0) {
            return 0; // one load while nothing is fired
        }
        return (int) INT.getAndBitwiseAnd(shared, at, SLEEP) & IDS;
    }

    /**
     * Sets SLEEP if no id is fired (a CAS from 0: a full fence before the caller's next look);
     * with {@code fenceSenders}, then a {@link Membarrier#fenceRegistered()}, so that senders that
     * ring with {@link #ringUnfenced} are fenced too before that look.
     *
     * @return {@code true} if armed; {@code false} if an id is fired (take it instead)
     */
    static boolean arm(ByteBuffer shared, int at, boolean fenceSenders) {
        int s = (int) INT.getVolatile(shared, at);
        if (s == SLEEP) {
            return true; // armed before, and fenced then: the caller's look comes after that fence
        }
        if (s != 0) {
            return false;
        }
        int witness = (int) INT.compareAndExchange(shared, at, 0, SLEEP);
        if (witness != 0 && witness != SLEEP) {
            return false;
        }
        if (fenceSenders) {
            Membarrier.fenceRegistered(); // after SLEEP is stored, before the caller's look
        }
        return true;
    }

    /**
     * Sleeps at most {@code nanos} if the word still holds SLEEP alone (no signal, no ring since
     * the arm), then clears SLEEP.
     *
     * @return {@code true} if it slept in the futex (woken or timed out), {@code false} if the
     *     word had changed already
     */
    static boolean sleepIfArmed(ByteBuffer shared, int at, long address, Futex futex, long nanos) {
        if ((int) INT.getVolatile(shared, at) != SLEEP) {
            disarm(shared, at);
            return false;
        }
        futex.await(address, SLEEP, nanos);
        disarm(shared, at);
        return true;
    }

    /** Clears SLEEP if it is set (one load when it is not). */
    static void disarm(ByteBuffer shared, int at) {
        if (((int) INT.getVolatile(shared, at) & SLEEP) != 0) {
            INT.getAndBitwiseAnd(shared, at, IDS);
        }
    }
}
