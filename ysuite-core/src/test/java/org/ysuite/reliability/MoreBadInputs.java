package org.ysuite.reliability;

import java.util.ArrayList;
import java.util.List;

/** The rows of the types landed after the pipes (signalers, socket pair, mailbox). */
final class MoreBadInputs {

    /** Every type the matrix must cover. */
    static final String[] TYPES = {"YPipe", "OffHeapYPipe"};

    private MoreBadInputs() {
    }

    static List<BadInput> rows() {
        return new ArrayList<>();
    }

    static void close() {
    }
}
