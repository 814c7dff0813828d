package org.ysuite.soak;

/** Soak runs of types that have not landed yet. */
final class Runs {

    private Runs() {
    }

    static Soak.Run mailbox(long messages, long seed) {
        throw new UnsupportedOperationException("YMailbox has not landed in this build");
    }
}
