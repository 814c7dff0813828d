package org.ysuite.reliability;

import org.ysuite.NioSignaler;
import org.ysuite.PollableSignaler;
import org.ysuite.Signaler;
import org.ysuite.WaitPolicy;
import org.ysuite.YMailbox;
import org.ysuite.YSocketPair;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.IntConsumer;

/** The bad-input rows of YSocketPair (both kinds), NioSignaler and YMailbox. */
final class WakeupBadInputs {

    private static final List<Closeable> OPENED = new ArrayList<>();

    private WakeupBadInputs() {
    }

    private static <C extends Closeable> C open(C c) {
        OPENED.add(c);
        return c;
    }

    static void close() {
        for (Closeable c : OPENED) {
            try {
                c.close();
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }
        OPENED.clear();
    }

    static List<BadInput> rows() {
        List<BadInput> all = new ArrayList<>();

        BadInput.Rows s = new BadInput.Rows("YSocketPair");
        SignalerBadInputs.signaler(s, p -> new YSocketPair(YSocketPair.Kind.SOCKETPAIR, p), open(new YSocketPair()));
        s.npe("new YSocketPair(EVENTFD, null policy)", () -> new YSocketPair(YSocketPair.Kind.EVENTFD, null), "policy");
        YSocketPair eventfd = open(new YSocketPair(YSocketPair.Kind.EVENTFD));
        for (int bad : new int[] {-1, 256, 257, Integer.MAX_VALUE}) {
            s.iae("eventfd signal(" + bad + ")", () -> eventfd.signal(bad), "id", "[0, 256)", bad);
        }
        s.npe("new YSocketPair(null kind)", () -> new YSocketPair((YSocketPair.Kind) null), "kind");
        s.npe("new YSocketPair(null kind, purePark)", () -> new YSocketPair(null, WaitPolicy.purePark()), "kind");
        for (YSocketPair.Kind kind : YSocketPair.Kind.values()) {
            YSocketPair closed = new YSocketPair(kind);
            closed.close();
            afterClose(s, kind + " ", closed);
            s.ise(kind + " fd() after close", closed::fd, "closed");
        }
        all.addAll(s.rows);

        BadInput.Rows n = new BadInput.Rows("NioSignaler");
        SignalerBadInputs.signaler(n, NioSignaler::new, open(new NioSignaler()));
        NioSignaler closedNio = new NioSignaler();
        closedNio.close();
        afterClose(n, "", closedNio);
        n.ise("channel() after close", closedNio::channel, "closed");
        all.addAll(n.rows);

        BadInput.Rows m = new BadInput.Rows("YMailbox");
        m.npe("new YMailbox(null)", () -> new YMailbox<String>(null), "signaler");
        Signaler noIds = new Signaler() {
            @Override
            public void signal(int id) {
            }

            @Override
            public int capacity() {
                return 0;
            }
        };
        m.iae("new YMailbox(signaler of capacity 0)", () -> new YMailbox<String>(noIds), "signaler.capacity()", "1", 0);
        YMailbox<String> mailbox = new YMailbox<>();
        YMailbox.Writer<String> writer = mailbox.newWriter();
        m.npe("Writer.write(null)", () -> writer.write(null), "message");
        m.npe("Writer.write(null, true)", () -> writer.write(null, true), "message");
        m.npe("Writer.send(null)", () -> writer.send(null), "message");
        m.npe("check(null)", () -> mailbox.check(null), "handler");
        m.npe("poll(null)", () -> mailbox.poll(null), "handler");
        m.npe("poll(null, 1, ms)", () -> mailbox.poll(null, 1, TimeUnit.MILLISECONDS), "handler");
        Consumer<String> h = v -> { };
        m.iae("poll(h, -1, ms)", () -> mailbox.poll(h, -1, TimeUnit.MILLISECONDS), "timeout", "0", -1);
        m.iae("poll(h, MIN_VALUE, ns)", () -> mailbox.poll(h, Long.MIN_VALUE, TimeUnit.NANOSECONDS), "timeout", "0", Long.MIN_VALUE);
        m.npe("poll(h, 1, null)", () -> mailbox.poll(h, 1, null), "unit");
        YMailbox<String> overPlain = new YMailbox<>(noIdsButOne());
        m.ise("poll over a signaler that cannot block", () -> overPlain.poll(h), "PollableSignaler");
        m.ise("poll(timeout) over a signaler that cannot block", () -> overPlain.poll(h, 1, TimeUnit.MILLISECONDS), "PollableSignaler");
        m.ise("a second reader thread polling while the reader polls", () -> {
            YMailbox<String> box = new YMailbox<>(new org.ysuite.YPollset(WaitPolicy.purePark()));
            YMailbox.Writer<String> w = box.newWriter();
            SignalerBadInputs.secondWaiter(box, b -> b.poll(h), b -> b.poll(h, 10, TimeUnit.SECONDS), () -> w.send("x"));
        }, "one waiting thread");
        YSocketPair closedPair = new YSocketPair();
        YMailbox<String> overClosed = new YMailbox<>(closedPair);
        YMailbox.Writer<String> lateWriter = overClosed.newWriter();
        closedPair.close();
        m.ise("Writer.send over a closed signaler", () -> lateWriter.send("x"), "closed");
        m.ise("check over a closed signaler", () -> overClosed.check(h), "closed");
        m.ise("poll over a closed signaler", () -> overClosed.poll(h, 1, TimeUnit.MILLISECONDS), "closed");
        all.addAll(m.rows);
        return all;
    }

    private static Signaler noIdsButOne() {
        return new Signaler() {
            @Override
            public void signal(int id) {
            }

            @Override
            public int capacity() {
                return 1;
            }
        };
    }

    private static void afterClose(BadInput.Rows t, String prefix, PollableSignaler closed) {
        IntConsumer ids = id -> { };
        t.ise(prefix + "signal(0) after close", () -> closed.signal(0), "closed");
        t.ise(prefix + "check after close", () -> closed.check(ids), "closed");
        t.ise(prefix + "poll after close", () -> closed.poll(ids), "closed");
        t.ise(prefix + "poll(timeout) after close", () -> closed.poll(ids, 1, TimeUnit.MILLISECONDS), "closed");
    }
}
