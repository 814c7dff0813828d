package org.ysuite.netty;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/** The checks and defaults of {@link LoopMailbox.Builder}'s observability settings. */
final class MailboxSettings {

    /** The largest {@link LoopMailbox.Builder#handOffSampleInterval}. */
    static final int MAX_SAMPLE_INTERVAL = 1 << 30;

    /** Numbers the mailboxes registered without a name (once per registration, never per message). */
    private static final AtomicLong UNNAMED = new AtomicLong();

    private MailboxSettings() {
    }

    static String checkName(String name) {
        Objects.requireNonNull(name, "name");
        if (name.isBlank()) {
            throw new IllegalArgumentException("name must not be blank: \"" + name + "\"");
        }
        return name;
    }

    static String nameOrDefault(String name) {
        return name != null ? name : "LoopMailbox-" + UNNAMED.incrementAndGet();
    }

    static int checkSampleInterval(int interval) {
        if (interval < 1 || interval > MAX_SAMPLE_INTERVAL || Integer.bitCount(interval) != 1) {
            throw new IllegalArgumentException("handOffSampleInterval must be a power of two from 1 to "
                    + MAX_SAMPLE_INTERVAL + ": " + interval);
        }
        return interval;
    }
}
