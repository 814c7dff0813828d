package org.ysuite.internal.event;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** A shared pipe's side found its peer process gone (it died or closed without a goodbye). */
@Name("org.ysuite.PeerGone")
@Label("Peer Gone")
@Category("ysuite")
@Description("A shared pipe's side declared its peer process gone")
@Enabled(false)
@StackTrace(false)
public final class PeerGoneEvent extends Event {

    @Label("Side")
    @Description("The side that noticed: \"SharedPipeReader\" or \"SharedPipeWriter\"")
    String side;

    @Label("Name")
    @Description("The name the user gave the pipe (null if none)")
    String name;

    @Label("File")
    @Description("The pipe's file")
    String file;

    @Label("Reason")
    @Description("Why the peer counts as gone")
    String reason;

    private PeerGoneEvent() {
    }

    /**
     * Records a peer declared gone, if the event is enabled.
     *
     * @param side the side that noticed
     * @param name the user's name for the pipe, or null
     * @param file the pipe's file
     * @param reason why the peer counts as gone
     */
    public static void emit(String side, String name, String file, String reason) {
        if (!FlightRecorder.isInitialized()) {
            return;
        }
        PeerGoneEvent e = new PeerGoneEvent();
        if (e.isEnabled()) {
            e.side = side;
            e.name = name;
            e.file = file;
            e.reason = reason;
            e.commit();
        }
    }
}
