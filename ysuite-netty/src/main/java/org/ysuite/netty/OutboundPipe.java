package org.ysuite.netty;

import java.util.function.Consumer;
import org.ysuite.OffHeapYPipe;

/**
 * One writer's outbound pipe as the loop sees it: the pipe, the preallocated task its writer
 * queues on the loop when a flush finds the loop asleep on it, and whether the loop has it in its
 * list to drain.
 */
final class OutboundPipe {

    final OffHeapYPipe pipe;
    /** Queued with {@code loop.execute} once per sleep of the loop on this pipe; never allocated again. */
    final Runnable wake;
    /** Loop thread only: in the encoder's list of pipes to drain. */
    boolean pending;

    OutboundPipe(OffHeapYPipe pipe, Consumer<OutboundPipe> onWake) {
        this.pipe = pipe;
        this.wake = () -> onWake.accept(this);
    }
}
