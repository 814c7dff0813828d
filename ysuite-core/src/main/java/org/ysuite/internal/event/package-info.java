/**
 * ysuite's JDK Flight Recorder events: a waiting side parked ({@code org.ysuite.Park}), a flush
 * that found its reader asleep and woke it ({@code org.ysuite.Wakeup}), a writer that waited for
 * space in a full ring ({@code org.ysuite.WriterBlocked}) and a shared pipe's peer declared gone
 * ({@code org.ysuite.PeerGone}).
 *
 * <p>Every event is disabled by default and is emitted only on a slow path that already pays a
 * park, a wake-up or a failed wait, never on a write, flush or read that finds its peer awake.
 * While the JVM has not initialised the Flight Recorder, each emission point costs one static
 * read and allocates nothing; while it has, each slow path allocates its event object, which is
 * dropped at once if the event is disabled. Enable them with the settings file
 * {@code org/ysuite/ysuite.jfc} in the jar (see docs/observability.md) or
 * {@code jfr configure}/{@code -XX:StartFlightRecording:+org.ysuite.Park#enabled=true}.
 *
 * <p>Not public API: the package is not exported; the events are known by their names.
 */
package org.ysuite.internal.event;
