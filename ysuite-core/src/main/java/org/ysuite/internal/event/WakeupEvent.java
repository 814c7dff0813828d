package org.ysuite.internal.event;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * A flush found its reader asleep and a wake-up was sent (or, for a pipe whose reader waits on a
 * signaler of the caller's, asked for: the flush returned false). A busy pipe has none.
 */
@Name("org.ysuite.Wakeup")
@Label("Wake-up")
@Category("ysuite")
@Description("A flush or signal found the reader asleep and woke it")
@Enabled(false)
@StackTrace(false)
public final class WakeupEvent extends Event {

    @Label("Waker")
    @Description("What woke its reader, e.g. \"OffHeapYPipe flush\"")
    String waker;

    @Label("Name")
    @Description("The name the user gave the pipe, signaler, mailbox or stream (null if none)")
    String name;

    private WakeupEvent() {
    }

    /**
     * Records a wake-up, if the event is enabled.
     *
     * @param waker what woke its reader
     * @param name the user's name for it, or null
     */
    public static void emit(String waker, String name) {
        if (!FlightRecorder.isInitialized()) {
            return;
        }
        WakeupEvent e = new WakeupEvent();
        if (e.isEnabled()) {
            e.waker = waker;
            e.name = name;
            e.commit();
        }
    }
}
