package org.ysuite.agrona;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.ysuite.shared.SharedSignalSender;
import org.ysuite.shared.SharedSignaler;

/**
 * {@link SharedSignalerIdleStrategy}'s steps, with an hour as the longest sleep (so a sleep that
 * ends was ended by a ring): the arming call returns for one more poll, a ring between the arm
 * and the sleep is not lost, work disarms, a sleeping loop is woken by a ring.
 */
class SharedSignalerIdleStrategyTest {

    private Path dir;
    private SharedSignaler doorbell;
    private SharedSignalSender sender;

    @BeforeEach
    void open() throws Exception {
        dir = TestDirs.newDir("ysuite-idle");
        doorbell = SharedSignaler.create(dir.resolve("doorbell"), 2);
        sender = SharedSignaler.openSender(doorbell.path());
    }

    @AfterEach
    void close() throws Exception {
        sender.close();
        doorbell.close();
        TestDirs.removeDir(dir);
    }

    private SharedSignalerIdleStrategy strategy() {
        return new SharedSignalerIdleStrategy(doorbell, 2, 1, 1, TimeUnit.HOURS);
    }

    /** {@code n} idle calls with no work, none of which may sleep (at most 30 s in all). */
    private static void idleAwake(SharedSignalerIdleStrategy idle, int n, String why) {
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            for (int i = 0; i < n; i++) {
                idle.idle(0);
            }
        }, why);
    }

    @Test
    void theArmingCallReturnsSoThatTheLoopPollsOnceMore() {
        SharedSignalerIdleStrategy idle = strategy();
        // 2 spins, 1 yield, then the arm: none may sleep
        idleAwake(idle, 4, "an idle call before the loop's look after arming slept");
        assertTrue(idle.isArmed());
        assertEquals(0, idle.sleeps());
    }

    @Test
    void aRingBetweenTheArmAndTheSleepEndsTheSleepAtOnce() {
        SharedSignalerIdleStrategy idle = strategy();
        idleAwake(idle, 4, "spin, yield, arm");
        assertTrue(idle.isArmed());
        assertTrue(sender.ring(), "the ring must see the armed loop");
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> idle.idle(0), "slept through a ring");
        assertFalse(idle.isArmed());
        assertEquals(0, idle.sleeps(), "no sleep after the ring");
    }

    @Test
    void workDisarmsAndARingIsThenOnlyALoad() {
        SharedSignalerIdleStrategy idle = strategy();
        idleAwake(idle, 4, "spin, yield, arm");
        assertTrue(idle.isArmed());
        idle.idle(3);
        assertFalse(idle.isArmed());
        assertFalse(sender.ring(), "an awake loop: the ring wakes nobody");
        assertEquals(0, sender.wakeups());
        assertEquals(0, doorbell.check());
    }

    @Test
    void aSleepingLoopIsWokenByARingAndFindsTheWork() throws Exception {
        SharedSignalerIdleStrategy idle = strategy();
        AtomicInteger work = new AtomicInteger();
        AtomicInteger done = new AtomicInteger();
        Thread loop = new Thread(() -> {
            while (done.get() == 0) {
                int w = work.getAndSet(0);
                done.set(w);
                idle.idle(w);
            }
        }, "idle-loop");
        loop.start();
        TestDirs.awaitSleeping(idle, loop);
        work.set(5); // the "offer"
        assertTrue(sender.ring());
        loop.join(TimeUnit.SECONDS.toMillis(60));
        assertFalse(loop.isAlive(), "the ring did not wake the loop");
        assertEquals(5, done.get());
        assertEquals(1, idle.sleeps());
    }

    @Test
    void aSignalIdAlsoWakesTheLoop() {
        SharedSignalerIdleStrategy idle = strategy();
        idleAwake(idle, 3, "spin, yield");
        sender.signal(4); // fired before the arm: the arm fails and the id is taken
        idleAwake(idle, 2, "a fired id: no sleep");
        assertEquals(0, doorbell.check());
    }

    @Test
    void badArgumentsAreNamed() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new SharedSignalerIdleStrategy(doorbell, -1, 0, 1, TimeUnit.MILLISECONDS));
        assertTrue(e.getMessage().contains("spins and yields must be >= 0: -1, 0"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> new SharedSignalerIdleStrategy(doorbell, 1, 1, 0, TimeUnit.MILLISECONDS));
        assertTrue(e.getMessage().contains("maxSleep must be > 0: 0"), e.getMessage());
        assertThrows(NullPointerException.class, () -> new SharedSignalerIdleStrategy(null));
        assertEquals("ysuite-futex", new SharedSignalerIdleStrategy(doorbell).alias());
    }

    @Test
    void anAdaptiveBudgetHalvesOnRunsOfLongSleepsAndGrowsOnShortOnes() {
        SharedSignalerIdleStrategy idle = new SharedSignalerIdleStrategy(doorbell, 100, 10, 1, TimeUnit.HOURS, true);
        long longSleep = SharedSignalerIdleStrategy.SHORT_SLEEP_NANOS * 2;
        long shortSleep = SharedSignalerIdleStrategy.SHORT_SLEEP_NANOS / 2;
        assertEquals(110, idle.budget(), "it starts at the caps");
        for (int i = 0; i < 3; i++) {
            idle.afterSleep(longSleep);
        }
        assertEquals(110, idle.budget(), "three long sleeps cost nothing");
        idle.afterSleep(longSleep);
        assertEquals(55, idle.budget(), "the fourth long sleep in a row halves it");
        idle.afterSleep(longSleep);
        idle.afterSleep(longSleep);
        idle.afterSleep(longSleep);
        idle.afterSleep(shortSleep);
        assertEquals(110, idle.budget(), "a short sleep doubles it (capped) and ends the run");
        for (int i = 0; i < 3; i++) {
            idle.afterSleep(longSleep);
        }
        assertEquals(110, idle.budget(), "the run started again after the short sleep");
        for (int i = 0; i < 4 * 7 + 1; i++) {
            idle.afterSleep(longSleep);
        }
        assertEquals(0, idle.budget(), "a sparse stream spins not at all");
        idle.afterSleep(shortSleep);
        assertEquals(27, idle.budget(), "a short sleep brings a quarter of the caps back");
        idle.afterSleep(shortSleep);
        assertEquals(54, idle.budget());
    }

    @Test
    void aLoopThatSleepsLongEndsWithNoSpinOnlyIfAdaptive() {
        // sleeps of at most 1 ms with no ring: each times out, longer than a short sleep
        SharedSignalerIdleStrategy adaptive = new SharedSignalerIdleStrategy(doorbell, 2, 1, 1, TimeUnit.MILLISECONDS, true);
        SharedSignalerIdleStrategy fixed = new SharedSignalerIdleStrategy(doorbell, 2, 1, 1, TimeUnit.MILLISECONDS);
        assertTrue(adaptive.isAdaptive());
        assertFalse(fixed.isAdaptive());
        assertTrue(new SharedSignalerIdleStrategy(doorbell).isAdaptive(), "the default adapts");
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            for (int i = 0; i < 1000 && adaptive.budget() > 0; i++) {
                adaptive.idle(0);
            }
        });
        assertEquals(0, adaptive.budget(), "timed-out sleeps took the adaptive budget to 0: " + adaptive);
        assertTrue(adaptive.sleeps() >= 8, "it slept: " + adaptive);
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            while (fixed.sleeps() < 8) {
                fixed.idle(0);
            }
        });
        assertEquals(3, fixed.budget(), "a fixed budget stays: " + fixed);
    }
}
