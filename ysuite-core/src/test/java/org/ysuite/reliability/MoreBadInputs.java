package org.ysuite.reliability;

import java.util.ArrayList;
import java.util.List;

/** The rows of the types landed after the pipes (signalers, socket pair, mailbox). */
final class MoreBadInputs {

    /** Every type the matrix must cover. */
    static final String[] TYPES = {"YPipe", "OffHeapYPipe", "YSemaphore", "YPollset"};

    private MoreBadInputs() {
    }

    static List<BadInput> rows() {
        List<BadInput> rows = new ArrayList<>();
        rows.addAll(SignalerBadInputs.rows());
        return rows;
    }

    static void close() {
    }
}
