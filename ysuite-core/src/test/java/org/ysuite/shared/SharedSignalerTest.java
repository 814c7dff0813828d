package org.ysuite.shared;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.ysuite.internal.Membarrier;
import org.ysuite.internal.Waits;

/**
 * {@link SharedSignaler} and {@link SharedSignalSender}: signals from another process wake a
 * sleeping owner, the doorbell, the arm-then-look window, liveness and close. The hostile files
 * are {@link SharedSignalerFileTest}'s.
 */
class SharedSignalerTest extends SharedPipeFileFixture {

    /** Waits (yielding, bounded) until the owner's word says SLEEP and its thread sleeps in the kernel. */
    static void awaitAsleep(SharedSignaler owner, Thread sleeper) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (owner.word() != SharedSignalerWords.SLEEP || !nativeThreadSleeps(sleeper.getName())) {
            if (System.nanoTime() > deadline) {
                fail("the owner never slept: word " + Integer.toHexString(owner.word()));
            }
            Thread.yield();
        }
    }

    static String finish(Process p) throws Exception {
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the child did not end: " + out);
        assertEquals(0, p.exitValue(), out);
        return out;
    }

    @Test
    void aSignalFromAnotherProcessWakesTheSleepingOwner() throws Exception {
        try (SharedSignaler owner = SharedSignaler.create(dir.resolve("sig"), 4)) {
            AtomicInteger got = new AtomicInteger();
            AtomicReference<Throwable> failed = new AtomicReference<>();
            Thread t = new Thread(() -> {
                try {
                    int ids = 0;
                    while ((ids & (1 << 3 | 1 << 30)) != (1 << 3 | 1 << 30)) {
                        // not poll(): its 100 ms slices would hide a signal that never wakes
                        if (owner.armSleep()) {
                            owner.sleepIfArmed(TimeUnit.MINUTES.toNanos(10));
                        }
                        ids |= owner.check();
                    }
                    got.set(ids);
                } catch (Throwable e) {
                    failed.set(e);
                }
            }, "sig-owner");
            t.start();
            awaitAsleep(owner, t);
            String out = finish(SharedSignalerChild.start("send", owner.path().toString(), "3", "30"));
            t.join(TimeUnit.SECONDS.toMillis(60));
            assertFalse(t.isAlive(), "the owner was never woken");
            assertEquals(null, failed.get());
            assertEquals(1 << 3 | 1 << 30, got.get());
            // the first signal finds the owner asleep; the second may find it asleep again
            assertTrue(out.contains("OK wakeups=1") || out.contains("OK wakeups=2"),
                    "the first signal must find the owner asleep and wake it: " + out);
            assertTrue(owner.sleeps() >= 1, "sleeps " + owner.sleeps());
            assertEquals(0, owner.check(), "each id is taken once");
        }
    }

    /** A signaler whose owner fences its senders after each arm (their rings unfenced), or not. */
    SharedSignaler create(boolean fenceSenders, int senders) throws IOException {
        assumeTrue(!fenceSenders || Membarrier.supported(), "no membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED) here");
        return SharedSignaler.create(dir.resolve("sig"), senders, fenceSenders);
    }

    @ParameterizedTest(name = "fenceSenders {0}")
    @ValueSource(booleans = {true, false})
    void aSendersRingsGoWithoutAFenceExactlyWhenTheOwnerFencesIt(boolean fenceSenders) throws Exception {
        try (SharedSignaler owner = create(fenceSenders, 1);
                SharedSignalSender sender = SharedSignaler.openSender(dir.resolve("sig"))) {
            assertEquals(fenceSenders, sender.ringsWithoutFence());
            assertEquals(fenceSenders ? 1 : 0, owner.file().shared.getInt(SharedSignalerFile.FENCES_SENDERS_AT),
                    "the file tells the senders");
        }
    }

    @Test
    void byDefaultTheOwnerFencesItsSendersWhereTheKernelCan() throws Exception {
        try (SharedSignaler owner = SharedSignaler.create(dir.resolve("sig"), 1);
                SharedSignalSender sender = SharedSignaler.openSender(dir.resolve("sig"))) {
            assertEquals(Membarrier.supported(), sender.ringsWithoutFence());
        }
    }

    @Test
    void aSenderRingsWithAFenceWhenTheFileSaysTheOwnerDoesNotFenceIt() throws Exception {
        try (SharedSignaler owner = create(true, 2)) {
            owner.file().shared.putInt(SharedSignalerFile.FENCES_SENDERS_AT, 0); // as an owner without membarrier
            try (SharedSignalSender sender = SharedSignaler.openSender(dir.resolve("sig"))) {
                assertFalse(sender.ringsWithoutFence());
            }
        }
    }

    @ParameterizedTest(name = "fenceSenders {0}")
    @ValueSource(booleans = {true, false})
    void aRingBetweenArmAndSleepIsNotLost(boolean fenceSenders) throws Exception {
        try (SharedSignaler owner = create(fenceSenders, 2);
                SharedSignalSender sender = SharedSignaler.openSender(dir.resolve("sig"))) {
            assertFalse(sender.ring(), "an awake owner: the ring is a load");
            assertTrue(owner.armSleep());
            assertTrue(sender.ring(), "the armed owner is woken");
            long start = System.nanoTime();
            assertFalse(owner.sleepIfArmed(TimeUnit.SECONDS.toNanos(30)), "a ring after the arm must stop the sleep");
            assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(20));
            assertEquals(0, owner.word(), "no id fired by a ring, sleep mark gone");
            assertEquals(1, sender.wakeups());
        }
    }

    @Test
    void aSignalBetweenArmAndSleepIsNotLost() throws Exception {
        try (SharedSignaler owner = SharedSignaler.create(dir.resolve("sig"), 1);
                SharedSignalSender sender = SharedSignaler.openSender(dir.resolve("sig"))) {
            assertTrue(owner.armSleep());
            sender.signal(5);
            assertFalse(owner.sleepIfArmed(TimeUnit.SECONDS.toNanos(30)), "a signal after the arm must stop the sleep");
            assertFalse(owner.armSleep(), "an id is fired: no arming");
            assertEquals(1 << 5, owner.check());
        }
    }

    @ParameterizedTest(name = "fenceSenders {0}")
    @ValueSource(booleans = {true, false})
    void aRingWakesAnOwnerAsleepInTheFutex(boolean fenceSenders) throws Exception {
        try (SharedSignaler owner = create(fenceSenders, 1);
                SharedSignalSender sender = SharedSignaler.openSender(dir.resolve("sig"))) {
            AtomicInteger slept = new AtomicInteger(-1);
            Thread t = new Thread(() -> {
                owner.armSleep();
                slept.set(owner.sleepIfArmed(TimeUnit.MINUTES.toNanos(10)) ? 1 : 0);
            }, "ring-owner");
            t.start();
            awaitAsleep(owner, t);
            assertTrue(sender.ring());
            t.join(TimeUnit.SECONDS.toMillis(60));
            assertFalse(t.isAlive(), "the ring did not wake the owner");
            assertEquals(1, slept.get());
            assertEquals(1, owner.sleeps());
        }
    }

    @Test
    void threadsOfTheOwnersProcessSignalEveryId() throws Exception {
        try (SharedSignaler owner = SharedSignaler.create(dir.resolve("sig"), 1)) {
            Thread[] threads = new Thread[SharedSignaler.CAPACITY];
            for (int i = 0; i < threads.length; i++) {
                int id = i;
                threads[i] = new Thread(() -> owner.signal(id));
                threads[i].start();
            }
            int all = 0;
            while (all != Integer.MAX_VALUE) {
                all |= owner.poll(1, TimeUnit.MINUTES);
            }
            for (Thread t : threads) {
                t.join();
            }
            assertEquals(0, owner.check());
            assertThrows(IllegalArgumentException.class, () -> owner.signal(31));
        }
    }

    @Test
    void aDeadOwnerIsSeenAndItsFileReplaced() throws Exception {
        Path sig = dir.resolve("sig");
        Process child = SharedSignalerChild.start("own", sig.toString());
        try {
            String ready = new java.io.BufferedReader(new java.io.InputStreamReader(child.getInputStream(),
                    StandardCharsets.UTF_8)).readLine();
            assertTrue(ready != null && ready.startsWith("READY"), "child: " + ready);
            try (SharedSignalSender sender = SharedSignaler.openSender(sig)) {
                assertTrue(sender.ownerAlive());
                child.destroyForcibly();
                assertTrue(child.waitFor(60, TimeUnit.SECONDS));
                assertFalse(sender.ownerAlive(), "the owner died: its lock is gone");
            }
            PeerGoneException gone = assertThrows(PeerGoneException.class, () -> SharedSignaler.openSender(sig));
            assertTrue(gone.getMessage().contains("is gone"), gone.getMessage());
            try (SharedSignaler again = SharedSignaler.create(sig, 1)) {
                assertEquals(sig.toAbsolutePath(), again.path());
            }
        } finally {
            child.destroyForcibly();
        }
    }

    @Test
    void closeWakesTheOwnerTellsTheSendersAndDeletesTheFile() throws Exception {
        Path sig = dir.resolve("sig");
        SharedSignaler owner = SharedSignaler.create(sig, 1);
        try (SharedSignalSender sender = SharedSignaler.openSender(sig)) {
            AtomicReference<Throwable> ended = new AtomicReference<>();
            Thread t = new Thread(() -> {
                try {
                    if (owner.armSleep()) {
                        owner.sleepIfArmed(TimeUnit.MINUTES.toNanos(10)); // only the close's wake-up ends it
                    }
                    owner.poll();
                } catch (Throwable e) {
                    ended.set(e);
                }
            }, "closed-owner");
            t.start();
            awaitAsleep(owner, t);
            owner.close();
            t.join(TimeUnit.SECONDS.toMillis(60));
            assertFalse(t.isAlive(), "the close did not wake the sleeping owner");
            assertTrue(ended.get() instanceof IllegalStateException, String.valueOf(ended.get()));
            assertFalse(sender.ownerAlive());
            assertFalse(Files.exists(sig), "close deletes the reference file");
            assertThrows(NoSuchFileException.class, () -> SharedSignaler.openSender(sig));
            assertThrows(IllegalStateException.class, () -> owner.signal(0));
            owner.close(); // idempotent
        }
    }

    @Test
    void sendersTakeSlotsAndADeadOrClosedSendersSlotIsFreeAgain() throws Exception {
        Path sig = dir.resolve("sig");
        try (SharedSignaler owner = SharedSignaler.create(sig, 2)) {
            SharedSignalSender a = SharedSignaler.openSender(sig);
            try (SharedSignalSender b = SharedSignaler.openSender(sig)) {
                assertEquals(2, owner.liveSenders());
                PipeSideTakenException full = assertThrows(PipeSideTakenException.class,
                        () -> SharedSignaler.openSender(sig));
                assertTrue(full.getMessage().contains("all 2 sender slots"), full.getMessage());
                a.close();
                assertThrows(IllegalStateException.class, () -> a.signal(0));
                assertEquals(1, owner.liveSenders());
                try (SharedSignalSender c = SharedSignaler.openSender(sig)) {
                    assertEquals(a.slot(), c.slot());
                    c.signal(1);
                    b.signal(2);
                    assertEquals(0b110, owner.check());
                }
            }
            assertEquals(0, owner.liveSenders());
        }
    }

    @Test
    void aSecondLiveOwnerIsRefused() throws IOException {
        Path sig = dir.resolve("sig");
        try (SharedSignaler owner = SharedSignaler.create(sig, 1)) {
            java.nio.file.FileAlreadyExistsException e = assertThrows(java.nio.file.FileAlreadyExistsException.class,
                    () -> SharedSignaler.create(sig, 1));
            assertTrue(e.getMessage().contains("live signaler owner"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> SharedSignaler.create(dir.resolve("x"), 0));
            assertThrows(IllegalArgumentException.class, () -> SharedSignaler.create(dir.resolve("x"), 4097));
        }
    }

    @Test
    void closeLeavesNoDescriptorOfTheMemfdOpen() throws Exception {
        long before = memfdDescriptors();
        SharedSignaler owner = SharedSignaler.create(dir.resolve("sig"), 2);
        SharedSignalSender sender = SharedSignaler.openSender(owner.path());
        assertEquals(before + 2, memfdDescriptors(), "the owner's and the sender's");
        sender.close();
        owner.close();
        assertEquals(before, memfdDescriptors(), "close must close both descriptors");
    }

    /** This process's open descriptors of signaler memfds. */
    private static long memfdDescriptors() throws IOException {
        long n = 0;
        try (java.util.stream.Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : (Iterable<Path>) fds::iterator) {
                try {
                    if (Files.readSymbolicLink(fd).toString().startsWith("/memfd:ysuite-signaler")) {
                        n++;
                    }
                } catch (IOException gone) {
                    // the listing's own descriptor
                }
            }
        }
        return n;
    }
}
