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
 * A waiting side parked: from the moment it published that it sleeps to the moment its wait
 * ended. Spinning before the park is not part of it.
 */
@Name("org.ysuite.Park")
@Label("Park")
@Category("ysuite")
@Description("A waiting side of a ysuite pipe, signaler, mailbox or stream parked until a signal,"
        + " its time limit, a close or an interrupt")
@Enabled(false)
@StackTrace(false)
public final class ParkEvent extends Event {

    @Label("Waiter")
    @Description("What waited: the type and its side, e.g. \"OffHeapYPipe reader\"")
    String waiter;

    @Label("Name")
    @Description("The name the user gave the pipe, signaler, mailbox or stream (null if none)")
    String name;

    @Label("Outcome")
    @Description("How the wait ended: signal, timeout, close or interrupt")
    String outcome;

    private ParkEvent() {
    }

    /**
     * Starts timing a park, if the event is enabled.
     *
     * @param waiter what waits
     * @param name the user's name for it, or null
     * @return the event to {@link #end}, or null (nothing to end) if the event is disabled
     */
    public static ParkEvent begin(String waiter, String name) {
        if (!FlightRecorder.isInitialized()) {
            return null; // no recording can be running: no allocation
        }
        ParkEvent e = new ParkEvent();
        if (!e.isEnabled()) {
            return null;
        }
        e.waiter = waiter;
        e.name = name;
        e.begin();
        return e;
    }

    /**
     * Ends a park begun by {@link #begin}.
     *
     * @param e the event, or null (then nothing happens)
     * @param outcome how it ended, one of {@link Outcome}'s constants
     */
    public static void end(ParkEvent e, String outcome) {
        if (e != null) {
            e.outcome = outcome;
            e.commit();
        }
    }
}
