package org.ysuite.netty;

import org.ysuite.OffHeapYPipe;

/**
 * One writer's outbound pipe as the loop sees it: the pipe, the signal id its writer fires when a
 * flush finds the loop asleep on it, and whether the loop has it in its list to drain.
 */
final class OutboundPipe {

    final OffHeapYPipe pipe;
    final int id;
    /** Loop thread only: in the encoder's list of pipes to drain. */
    boolean pending;

    OutboundPipe(OffHeapYPipe pipe, int id) {
        this.pipe = pipe;
        this.id = id;
    }
}
