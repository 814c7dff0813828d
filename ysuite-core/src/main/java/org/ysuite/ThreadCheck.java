package org.ysuite;

/**
 * The "one writer thread, one reader thread" rule of a {@link YPipe} (and of a
 * {@link YMailbox.Writer}, whose pipe it is): the switch of the checked mode and the messages of
 * the misuse it finds.
 *
 * <p>Each side of a {@code YPipe} has one field naming the thread inside it ({@code readerInside},
 * {@code writerInside}), on that side's own cache lines. A thread that finds the field naming
 * another thread is refused with {@link IllegalStateException}. When the field is set:
 * <ul>
 *   <li>Always, where it is free: while a {@code readBatch} handler or a {@code probe} predicate
 *       runs, while the reader spins and swaps in "asleep" (a look that found nothing, the
 *       reader's slow path), and while a {@code YMailbox.Writer} signals its sleeping reader.
 *       Plain loads and stores, looked at on entry to every reader call (one plain load, already
 *       there for the handlers), when the reader or writer moves to another chunk, and when the
 *       window closes; and where two threads have already moved the positions past a chunk's
 *       end (the JVM's own bounds and null checks, turned into this error at no cost). A second
 *       thread is seen only when it overlaps one of these windows, so
 *       default mode catches two threads eventually, not at once; that is the price of a check
 *       that adds no atomic instruction to a write, flush or read that finds its peer awake.</li>
 *   <li>In checked mode ({@code -D}{@value #PROPERTY}{@code =true}, read once when this class
 *       loads): around every call of either side, with an atomic compare-and-set to enter and a
 *       release store to leave, so two threads inside one side at the same time are always
 *       refused (the later one, before it touches anything). A hand-over from one thread to
 *       another through a happens-before edge is still allowed. For tests: it costs two atomic
 *       instructions per call.</li>
 * </ul>
 * None of this changes the ordering of the pipe's protocol: the marker fields are never read by
 * the protocol, only by the check.
 */
final class ThreadCheck {

    /** The system property that turns the checked mode on: {@code -Dysuite.checkThreads=true}. */
    static final String PROPERTY = "ysuite.checkThreads";

    /** Whether every call is checked; a constant, so that the JIT drops the check when false. */
    static final boolean CHECKED = Boolean.getBoolean(PROPERTY);

    private ThreadCheck() {
    }

    /**
     * The reader side is in use by {@code inside}: from a handler of this thread (re-entrant),
     * or by another thread.
     */
    static IllegalStateException busyReader(Thread inside, String method) {
        Thread me = Thread.currentThread();
        if (inside == me) {
            return new IllegalStateException(method + "() called from inside a readBatch handler"
                    + " (or probe predicate): the reader side is in use by that call (re-entrant"
                    + " reads are not supported)");
        }
        return new IllegalStateException("a YPipe has one reader thread at a time: " + inside
                + " is inside a reader call, so " + me + " may not call " + method + "() now"
                + hint());
    }

    /** The writer side is in use by another thread ({@code null}: seen by its effect). */
    static IllegalStateException busyWriter(Thread inside, String method) {
        return new IllegalStateException("a pipe has one writer thread at a time: "
                + (inside == null ? "another thread" : inside) + " is inside a writer call, so " + Thread.currentThread() + " may not call "
                + method + "() now (a YMailbox gives each writer thread its own Writer)" + hint());
    }

    /**
     * A second thread was inside the reader's wait at the same time as this one: it replaced
     * (or cleared) this thread's mark.
     */
    static IllegalStateException overlappedReader(Thread found) {
        return new IllegalStateException("a YPipe has one reader thread at a time: "
                + (found == null ? "another thread" : found) + " read it while "
                + Thread.currentThread() + " was reading; the pipe's contents are no longer"
                + " reliable" + hint());
    }

    /** The same for the writer's window (a mailbox writer's signal). */
    static IllegalStateException overlappedWriter(Thread found) {
        return new IllegalStateException("a pipe has one writer thread at a time: "
                + (found == null ? "another thread" : found) + " wrote to it while "
                + Thread.currentThread() + " was signalling its reader; the pipe's contents are no"
                + " longer reliable" + hint());
    }

    private static String hint() {
        return CHECKED ? "" : " (-D" + PROPERTY + "=true checks every call)";
    }
}
