package org.ysuite.agrona;

import io.aeron.Publication;
import io.aeron.Subscription;
import io.aeron.logbuffer.FragmentHandler;
import java.util.function.BooleanSupplier;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.IdleStrategy;
import org.ysuite.shared.SharedSignalSender;

/**
 * The code of docs/aeron.md's "How to make an Aeron subscriber sleep at 0 % CPU", character for
 * character ({@link AeronDocSnippetTest} checks it), used by {@link AeronSubscriberSleepTest}'s
 * two JVMs.
 */
final class AeronSleepExample {

    private AeronSleepExample() {
    }

    // subscriber process: idle = new SharedSignalerIdleStrategy(SharedSignaler.create(doorbellPath, 16))
    static void subscribe(Subscription subscription, FragmentHandler handler, IdleStrategy idle,
            BooleanSupplier running) {
        while (running.getAsBoolean()) {
            idle.idle(subscription.poll(handler, 10)); // no fragment: spin, yield, arm, then sleep
        }
    }

    // publisher process: doorbell = SharedSignaler.openSender(doorbellPath)
    static void publish(Publication publication, SharedSignalSender doorbell, DirectBuffer message, int length) {
        long result;
        while ((result = publication.offer(message, 0, length)) < 0) {
            if (result == Publication.CLOSED || result == Publication.MAX_POSITION_EXCEEDED) {
                throw new IllegalStateException("cannot publish: " + Publication.errorString(result));
            }
            Thread.onSpinWait(); // back pressured, or the subscriber not connected yet: offer again
        }
        doorbell.ring(); // a load while the subscriber is awake; FUTEX_WAKE if it sleeps
    }
}
