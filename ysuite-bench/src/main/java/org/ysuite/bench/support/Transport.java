package org.ysuite.bench.support;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Names the transport a benchmark method measures, for the report's tables and ratios; or, on a
 * constant of a contenders' enum, the transport that constant stands for. A scenario whose
 * contenders share one benchmark method holds them in its state's {@code @Param} field
 * {@value #PEER} of such an enum type (JMH gives each fork one constant, so the measured call
 * through the contender's interface stays monomorphic); the constant's name is the row's name in
 * the report (the name older runs gave the benchmark method of that row).
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.FIELD})
public @interface Transport {

    /** The name of a state's field (a JMH {@code @Param} of a contenders' enum) that holds the contender. */
    String PEER = "peer";

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
