package org.ysuite.bench.support;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Names the transport a benchmark method measures, for the report's tables and ratios.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Transport {

    /** What kind of transport a row is: ysuite rows get ratios against every other kind. */
    enum Kind {
        /** A y-suite transport (the subject). */
        YSUITE,
        /** A peer whose reader blocks (parks) when idle. */
        BLOCKING,
        /** A peer whose reader busy-spins when idle (burns a core). */
        BUSY_SPIN,
        /** A peer whose reader polls with a fixed sleep when idle (wakes late, costs little). */
        POLLING,
        /** Local sockets (the seed's baseline). */
        SOCKET,
        /** A physical limit, not a transport (memory copy). */
        BASELINE
    }

    /**
     * Row label in the report.
     *
     * @return label
     */
    String label();

    /**
     * Kind of transport.
     *
     * @return kind
     */
    Kind kind();
}
