package org.ysuite.reliability;

import java.util.ArrayList;
import java.util.List;

/** The rows of the signalers, the socket pair, the NIO bridge and the mailbox. */
final class MoreBadInputs {

    /** Every type the matrix must cover. */
    static final String[] TYPES = {"YPipe", "OffHeapYPipe", "YSemaphore", "YPollset", "YSocketPair", "NioSignaler", "YMailbox"};

    private MoreBadInputs() {
    }

    static List<BadInput> rows() {
        List<BadInput> rows = new ArrayList<>();
        rows.addAll(SignalerBadInputs.rows());
        rows.addAll(WakeupBadInputs.rows());
        return rows;
    }

    static void close() {
        WakeupBadInputs.close();
    }
}
