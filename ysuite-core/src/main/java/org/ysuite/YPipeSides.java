package org.ysuite;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A {@link YPipe}'s two sides as {@link ThreadCheck} marks them: the default mode's plain marks
 * (the reader's entry check and its wait, a mailbox writer's signal) and the checked mode's
 * compare-and-set around every call. Each method is a few instructions the JIT inlines into the
 * public call; with {@link ThreadCheck#CHECKED} a constant, the mode not taken is dropped.
 */
abstract class YPipeSides extends YPipeSpares {

    /** The thread markers, for the checked mode's compare-and-set (see {@link ThreadCheck}). */
    private static final VarHandle READER_INSIDE;
    private static final VarHandle WRITER_INSIDE;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            READER_INSIDE = lookup.findVarHandle(YPipeReaderStore.class, "readerInside", Thread.class);
            WRITER_INSIDE = lookup.findVarHandle(YPipeWriterStore.class, "writerInside", Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Default mode, any reader call: refused while another call is inside (see {@link ThreadCheck}). */
    final void requireReaderFree(String method) {
        Thread inside = readerInside; // plain: a reader-owned field, on the reader's lines
        if (inside != null) {
            throw ThreadCheck.busyReader(inside, method);
        }
    }

    /** Checked mode: enters the reader side, or throws if another call is inside it. */
    final void enterReader(String method) {
        // Acquire, and the release in leaveReader: only the checked mode adds these edges.
        Thread inside = (Thread) READER_INSIDE.compareAndExchangeAcquire(
                this, (Thread) null, Thread.currentThread());
        if (inside != null) {
            throw ThreadCheck.busyReader(inside, method);
        }
    }

    final void leaveReader() {
        READER_INSIDE.setRelease(this, (Thread) null);
    }

    /** Checked mode: enters the writer side, or throws if another thread is inside it. */
    final void enterWriter(String method) {
        Thread inside = (Thread) WRITER_INSIDE.compareAndExchangeAcquire(
                this, (Thread) null, Thread.currentThread());
        if (inside != null) {
            throw ThreadCheck.busyWriter(inside, method);
        }
    }

    final void leaveWriter() {
        WRITER_INSIDE.setRelease(this, (Thread) null);
    }

    /** Default mode: the reader spins and sleeps (its slow path) with its side marked. */
    @Override
    final void readerWaitBegins() {
        if (!ThreadCheck.CHECKED) {
            readerInside = Thread.currentThread();
        }
    }

    @Override
    final void readerWaitEnds() {
        if (!ThreadCheck.CHECKED) {
            Thread found = readerInside;
            readerInside = null;
            if (found != Thread.currentThread()) {
                throw ThreadCheck.overlappedReader(found); // another reader came in meanwhile
            }
        }
    }

    /**
     * Writer that found its reader asleep ({@link #flush()} returned {@code false}): fires
     * {@code id} on {@code signaler} with the writer side marked, a system call's time in which
     * another writer thread is seen (a {@link YMailbox.Writer}'s slow path; see
     * {@link ThreadCheck}).
     */
    final void signalReader(Signaler signaler, int id) {
        if (ThreadCheck.CHECKED) {
            enterWriter("flush");
            try {
                signaler.signal(id);
            } finally {
                leaveWriter();
            }
            return;
        }
        Thread me = Thread.currentThread();
        Thread inside = writerInside;
        if (inside != null) {
            throw ThreadCheck.busyWriter(inside, "flush");
        }
        writerInside = me;
        try {
            signaler.signal(id);
        } catch (RuntimeException | Error e) {
            writerInside = null;
            throw e;
        }
        Thread found = writerInside;
        writerInside = null;
        if (found != me) {
            throw ThreadCheck.overlappedWriter(found);
        }
    }
}
