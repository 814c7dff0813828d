package org.ysuite.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class WaitsTest {

    @Test
    void timeoutCheckedAndConvertedSaturating() {
        assertEquals(0L, Waits.timeoutNanos(0, TimeUnit.DAYS));
        assertEquals(3_000_000L, Waits.timeoutNanos(3, TimeUnit.MILLISECONDS));
        assertEquals(Long.MAX_VALUE, Waits.timeoutNanos(Long.MAX_VALUE, TimeUnit.DAYS));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Waits.timeoutNanos(-7, TimeUnit.SECONDS));
        assertTrue(e.getMessage().startsWith("timeout must be >= 0: -7"), e.getMessage());
        assertThrows(NullPointerException.class, () -> Waits.timeoutNanos(1, null));
    }

    @Test
    void badIdMessageNamesIdAndLimit() {
        assertEquals("id must be in [0, 31): 40", Waits.badId(40, 31).getMessage());
    }

    @Test
    void timedParkPastTheDeadlineReturnsFalseWithoutParking() {
        assertFalse(Waits.park(this, true, System.nanoTime() - 1));
        // a deadline that wrapped past Long.MAX_VALUE is still in the future
        long farDeadline = Waits.deadline(Long.MAX_VALUE);
        Thread.currentThread().interrupt(); // park returns at once while interrupted
        try {
            assertTrue(Waits.park(this, true, farDeadline));
        } finally {
            Thread.interrupted();
        }
    }
}
