package org.ysuite.agrona;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.aeron.Aeron;
import io.aeron.Subscription;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.ysuite.shared.SharedSignaler;

/**
 * An Aeron IPC subscriber in this JVM, over an embedded media driver, idles on
 * {@link SharedSignalerIdleStrategy}; the publisher is another JVM ({@link AeronPublisherChild})
 * that rings the doorbell after each offer. The subscriber's longest sleep is an hour, so every
 * message that reaches it after it fell asleep was brought by a ring: the test waits until it
 * sleeps (its flag and its native thread's state), has messages sent, and checks their contents,
 * their order and that the publisher woke it.
 */
class AeronSubscriberSleepTest {

    @Test
    void aSleepingSubscriberIsWokenByThePublishersRing() throws Exception {
        Path dir = TestDirs.newDir("ysuite-aeron");
        Path aeronDir = dir.resolve("aeron");
        MediaDriver.Context driverContext = new MediaDriver.Context().aeronDirectoryName(aeronDir.toString())
                .threadingMode(ThreadingMode.SHARED).dirDeleteOnStart(true).dirDeleteOnShutdown(true);
        try (MediaDriver driver = MediaDriver.launchEmbedded(driverContext);
                Aeron aeron = Aeron.connect(new Aeron.Context().aeronDirectoryName(driver.aeronDirectoryName()));
                Subscription subscription = aeron.addSubscription(AeronPublisherChild.CHANNEL, AeronPublisherChild.STREAM);
                SharedSignaler doorbell = SharedSignaler.create(dir.resolve("doorbell"), 4)) {
            SharedSignalerIdleStrategy idle = new SharedSignalerIdleStrategy(doorbell, 100, 10, 1, TimeUnit.HOURS);
            AtomicLong next = new AtomicLong();
            AtomicReference<String> wrong = new AtomicReference<>();
            CountDownLatch first = new CountDownLatch(1000);
            CountDownLatch second = new CountDownLatch(1);
            Thread subscriber = new Thread(() -> AeronSleepExample.subscribe(subscription, (buffer, offset, length, header) -> {
                long seq = buffer.getLong(offset);
                if (length != Long.BYTES || seq != next.getAndIncrement()) {
                    wrong.compareAndSet(null, "got " + seq + " (" + length + " bytes), expected " + (next.get() - 1));
                }
                (first.getCount() > 0 ? first : second).countDown();
            }, idle, () -> second.getCount() > 0 && wrong.get() == null), "aeron-subscriber");
            subscriber.setDaemon(true);
            subscriber.start();
            Process child = AeronPublisherChild.start(Path.of(driver.aeronDirectoryName()), doorbell.path());
            try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
                    PrintStream in = new PrintStream(child.getOutputStream(), true, StandardCharsets.UTF_8)) {
                assertEquals("READY", out.readLine());
                TestDirs.awaitSleeping(idle, subscriber);
                in.println("send 1000 0");
                String sent = out.readLine();
                assertTrue(sent != null && sent.startsWith("SENT 1000 wakeups="), sent);
                assertTrue(first.await(60, TimeUnit.SECONDS), "the subscriber got " + next.get() + " of 1000");
                long sleepsBefore = idle.sleeps();

                TestDirs.awaitSleeping(idle, subscriber);
                in.println("send 1 1000");
                String sentOne = out.readLine();
                assertTrue(sent != null && sentOne.startsWith("SENT 1 wakeups="), sentOne);
                assertTrue(second.await(60, TimeUnit.SECONDS), "the sleeping subscriber was never woken");
                subscriber.join(TimeUnit.SECONDS.toMillis(60));
                assertFalse(subscriber.isAlive());
                assertNull(wrong.get());
                assertEquals(1001, next.get());
                assertTrue(sleepsBefore >= 1, "slept " + sleepsBefore + " times before the first burst");
                assertTrue(idle.sleeps() > sleepsBefore, "slept again before the last message");
                long wakeups = Long.parseLong(sentOne.substring(sentOne.indexOf('=') + 1));
                assertTrue(wakeups >= 2, "the publisher's rings woke the subscriber " + wakeups + " times: " + sentOne);
                in.println("exit");
                assertTrue(child.waitFor(60, TimeUnit.SECONDS));
                assertEquals(0, child.exitValue());
            } finally {
                child.destroyForcibly();
            }
        } finally {
            TestDirs.removeDir(dir);
        }
    }
}
