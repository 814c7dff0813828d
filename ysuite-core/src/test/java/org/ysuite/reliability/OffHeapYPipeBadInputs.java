package org.ysuite.reliability;

import org.ysuite.OffHeapYPipe;
import org.ysuite.WaitPolicy;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/** The bad-input rows of {@link OffHeapYPipe}; every pipe made here is closed by {@link #close()}. */
final class OffHeapYPipeBadInputs {

    private static final List<OffHeapYPipe> OPENED = new java.util.ArrayList<>();

    private OffHeapYPipeBadInputs() {
    }

    private static OffHeapYPipe open(int capacity) {
        OffHeapYPipe p = new OffHeapYPipe(capacity);
        OPENED.add(p);
        return p;
    }

    private static final List<OffHeapYPipe> CLAIMED = new java.util.ArrayList<>();

    static void close() {
        // An open claim holds the writer side: commit it, or close() cannot free the ring.
        CLAIMED.forEach(p -> p.commit(false));
        CLAIMED.clear();
        OPENED.forEach(OffHeapYPipe::close);
        OPENED.clear();
    }

    static List<BadInput> rows() {
        BadInput.Rows t = new BadInput.Rows("OffHeapYPipe");
        String maxCap = String.valueOf(OffHeapYPipe.MAX_CAPACITY_BYTES);
        int[] badCapacities = {0, -1, -256, Integer.MIN_VALUE, 1, 128, 255, 257, 384, 1000,
                (1 << 30) + 1, Integer.MAX_VALUE};
        for (int bad : badCapacities) {
            t.iae("new OffHeapYPipe(" + bad + ")", () -> new OffHeapYPipe(bad), "capacityBytes", maxCap, bad);
            t.iae("maxMessageLength(" + bad + ")", () -> OffHeapYPipe.maxMessageLength(bad), "capacityBytes", maxCap, bad);
        }
        t.npe("new OffHeapYPipe(256, null policy)", () -> new OffHeapYPipe(256, (WaitPolicy) null), "policy");

        OffHeapYPipe pipe = open(256);
        int max = pipe.maxMessageLength();
        String limit = String.valueOf(max);
        byte[] tooLong = new byte[max + 1];
        byte[] huge = new byte[1 << 16];
        t.npe("write(byte[])", () -> pipe.write((byte[]) null), "src");
        t.npe("write(byte[], off, len, incomplete)", () -> pipe.write(null, 0, 1, false), "src");
        t.npe("write(ByteBuffer, incomplete)", () -> pipe.write((ByteBuffer) null, false), "src");
        t.iae("write(byte[" + (max + 1) + "]) larger than the pipe can ever hold",
                () -> pipe.write(tooLong), "length", limit, max + 1);
        t.iae("write(byte[65536]) into a 256-byte pipe", () -> pipe.write(huge), "length", limit, 1 << 16);
        t.iae("write(byte[], 0, max + 1, true)", () -> pipe.write(tooLong, 0, max + 1, true), "length", limit, max + 1);
        t.iae("write(ByteBuffer of max + 1 bytes)", () -> pipe.write(ByteBuffer.allocate(max + 1), false), "length", limit, max + 1);
        t.iae("write(direct ByteBuffer of 64 KiB)", () -> pipe.write(ByteBuffer.allocateDirect(1 << 16), false), "length", limit, 1 << 16);
        byte[] small = new byte[8];
        t.ioobe("write(src, -1, 4)", () -> pipe.write(small, -1, 4, false), "-1");
        t.ioobe("write(src, 0, -1)", () -> pipe.write(small, 0, -1, false), "-1");
        t.ioobe("write(src, 6, 4) past the array's end", () -> pipe.write(small, 6, 4, false), "6", "4", "8");
        t.iae("claim(-1)", () -> pipe.claim(-1), "length", limit, -1);
        t.iae("claim(max + 1)", () -> pipe.claim(max + 1), "length", limit, max + 1);
        t.ise("commit() without a claim", () -> pipe.commit(false), "claim");
        t.iae("awaitSpace(-1)", () -> pipe.awaitSpace(-1), "length", limit, -1);
        t.iae("awaitSpace(max + 1)", () -> pipe.awaitSpace(max + 1), "length", limit, max + 1);
        t.iae("awaitSpace(8, -1, ms): negative timeout",
                () -> pipe.awaitSpace(8, -1, TimeUnit.MILLISECONDS), "timeout", "0", -1);
        t.iae("awaitSpace(8, MIN_VALUE, ns): negative timeout",
                () -> pipe.awaitSpace(8, Long.MIN_VALUE, TimeUnit.NANOSECONDS), "timeout", "0", Long.MIN_VALUE);
        t.npe("awaitSpace(8, 1, null)", () -> pipe.awaitSpace(8, 1, null), "unit");
        t.npe("read", () -> pipe.read(null), "dst");
        t.npe("readBatch", () -> pipe.readBatch(null), "handler");

        // A destination shorter than the next message: the message names dst.length and the need.
        OffHeapYPipe shortDst = open(256);
        shortDst.write(new byte[40]);
        shortDst.flush();
        t.iae("read(byte[8]) of a 40-byte message", () -> shortDst.read(new byte[8]), "dst.length", "40", 8);

        // State misuse that the pipe can detect.
        OffHeapYPipe claimed = open(256);
        claimed.claim(8);
        CLAIMED.add(claimed);
        t.ise("claim() while a claim is open", () -> claimed.claim(8), "claim");
        OffHeapYPipe unflushed = open(256);
        unflushed.write(new byte[8]);
        t.ise("awaitSpace with unflushed messages", () -> unflushed.awaitSpace(8), "flush");

        // A second writer while the first holds the writer side (an open claim), from another thread.
        OffHeapYPipe busyWriter = open(256);
        busyWriter.claim(8);
        CLAIMED.add(busyWriter);
        t.ise("a second writer thread during an open claim",
                () -> runOnOtherThread(() -> busyWriter.write(new byte[4])), "writer", "in use");
        // A second reader while the first is inside readBatch, from another thread.
        OffHeapYPipe busyReader = open(256);
        busyReader.write(new byte[4]);
        busyReader.flush();
        t.ise("a second reader thread during readBatch", () -> {
            AtomicReference<Throwable> second = new AtomicReference<>();
            busyReader.readBatch((b, o, l) -> second.set(failureOf(() -> runOnOtherThread(() -> busyReader.read(new byte[8])))));
            if (second.get() != null) {
                throw second.get();
            }
        }, "reader", "in use");

        // Every operation after close().
        OffHeapYPipe closed = open(256);
        closed.close();
        byte[] m = new byte[8];
        t.ise("write(byte[]) after close", () -> closed.write(m), "closed");
        t.ise("write(byte[], off, len) after close", () -> closed.write(m, 0, 8, true), "closed");
        t.ise("write(ByteBuffer) after close", () -> closed.write(ByteBuffer.wrap(m), false), "closed");
        t.ise("claim after close", () -> closed.claim(8), "closed");
        t.ise("claimBuffer after close", closed::claimBuffer, "closed");
        t.ise("unwrite after close", closed::unwrite, "closed");
        t.ise("flush after close", closed::flush, "closed");
        t.ise("awaitSpace after close", () -> closed.awaitSpace(8), "closed");
        t.ise("awaitSpace(timeout) after close", () -> closed.awaitSpace(8, 1, TimeUnit.SECONDS), "closed");
        t.ise("checkRead after close", closed::checkRead, "closed");
        t.ise("read after close", () -> closed.read(m), "closed");
        t.ise("readBatch after close", () -> closed.readBatch((b, o, l) -> { }), "closed");
        t.ise("commit after close without a claim", () -> closed.commit(false), "closed");
        // A claim open when close() came: commit releases it, and says the message is discarded.
        OffHeapYPipe closedMidClaim = open(256);
        closedMidClaim.claim(8);
        closedMidClaim.close();
        t.ise("claimBuffer after close during a claim", closedMidClaim::claimBuffer, "closed");
        t.ise("commit after close during a claim", () -> closedMidClaim.commit(false), "closed", "discarded");
        return t.rows;
    }

    /** Runs {@code call} on a fresh thread and rethrows what it threw there. */
    static void runOnOtherThread(org.junit.jupiter.api.function.Executable call) throws Throwable {
        CompletableFuture<Throwable> failure = new CompletableFuture<>();
        Thread t = new Thread(() -> failure.complete(failureOf(call)), "second-side");
        t.start();
        Throwable thrown = failure.get(60, TimeUnit.SECONDS);
        t.join(60_000);
        if (thrown != null) {
            throw thrown;
        }
    }

    static Throwable failureOf(org.junit.jupiter.api.function.Executable call) {
        try {
            call.execute();
            return null;
        } catch (Throwable e) {
            return e;
        }
    }
}
