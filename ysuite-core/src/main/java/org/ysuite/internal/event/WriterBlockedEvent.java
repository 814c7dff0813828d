package org.ysuite.internal.event;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * A writer waited for space in a full ring: from the look that found no room to the end of its
 * wait, spin and park together (back-pressure as the writer felt it).
 */
@Name("org.ysuite.WriterBlocked")
@Label("Writer Blocked")
@Category("ysuite")
@Description("A writer found its ring full and waited for the reader to free space")
@Enabled(false)
@StackTrace(false)
public final class WriterBlockedEvent extends Event {

    @Label("Writer")
    @Description("The writer's type, e.g. \"OffHeapYPipe writer\"")
    String writer;

    @Label("Name")
    @Description("The name the user gave the pipe or stream (null if none)")
    String name;

    @Label("Length")
    @Description("The bytes the writer needed room for")
    @DataAmount
    long length;

    @Label("Outcome")
    @Description("How the wait ended: signal (the space came), timeout, close or interrupt")
    String outcome;

    private WriterBlockedEvent() {
    }

    /**
     * Starts timing a wait for space, if the event is enabled.
     *
     * @param writer what waits
     * @param name the user's name for it, or null
     * @param length the bytes it needs room for
     * @return the event to {@link #end}, or null if the event is disabled
     */
    public static WriterBlockedEvent begin(String writer, String name, long length) {
        if (!FlightRecorder.isInitialized()) {
            return null;
        }
        WriterBlockedEvent e = new WriterBlockedEvent();
        if (!e.isEnabled()) {
            return null;
        }
        e.writer = writer;
        e.name = name;
        e.length = length;
        e.begin();
        return e;
    }

    /**
     * Ends a wait begun by {@link #begin}.
     *
     * @param e the event, or null (then nothing happens)
     * @param outcome how it ended, one of {@link Outcome}'s constants
     */
    public static void end(WriterBlockedEvent e, String outcome) {
        if (e != null) {
            e.outcome = outcome;
            e.commit();
        }
    }
}
