package org.ysuite.examples;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.function.Consumer;
import org.ysuite.MessageHandler;
import org.ysuite.OffHeapYPipe;
import org.ysuite.WaitPolicy;
import org.ysuite.YMailbox;
import org.ysuite.YPipe;
import org.ysuite.YPollset;
import org.ysuite.YSemaphore;
import org.ysuite.zmq.SocketType;
import org.ysuite.zmq.ZmqContext;
import org.ysuite.zmq.ZmqSocket;

/**
 * The README's two programs and docs/using.md's two, runnable: {@code PipeExample} (a writer and a reader over a
 * {@link YPipe} woken by a {@link YSemaphore}), {@code MailboxExample} (three writers to one
 * reader through a {@link YMailbox}, stopped by {@link YMailbox#close()}) and
 * {@code OffHeapPipeExample} (byte messages through an {@link OffHeapYPipe}, read as views with
 * {@code readBatch}, the reader waiting in {@code awaitMessage}) and the README's {@code ZmqExample}
 * (a two-frame message from a ZeroMQ PUSH socket to a PULL socket over TCP).
 *
 * <p>The four classes below this one are the code blocks of the README and docs/using.md, character for character
 * (without this file's package line; their imports are among this file's): the examples' tests
 * check that every {@code java} block of the README appears here and compiles on its own as
 * pasted, and run the programs.
 *
 * <pre>{@code
 * java -jar ysuite-examples/target/ysuite-examples.jar readme
 * }</pre>
 */
public final class ReadmeExamples {

    private ReadmeExamples() {
    }

    /**
     * Runs the four examples; they print to {@link System#out}.
     *
     * @param args ignored
     * @throws InterruptedException if interrupted while joining a thread
     */
    public static void main(String[] args) throws InterruptedException {
        runPipeExample();
        runMailboxExample();
        runOffHeapPipeExample();
        runZmqExample();
    }

    /**
     * Runs the README's first program, which prints {@code hello} and {@code world}.
     *
     * @throws InterruptedException if interrupted while joining the reader
     */
    public static void runPipeExample() throws InterruptedException {
        PipeExample.main(new String[0]);
    }

    /**
     * Runs docs/using.md's mailbox program, which prints one summary line.
     *
     * @throws InterruptedException if interrupted while joining a thread
     */
    public static void runMailboxExample() throws InterruptedException {
        MailboxExample.main(new String[0]);
    }

    /**
     * Runs docs/using.md's off-heap program, which prints one summary line.
     *
     * @throws InterruptedException if interrupted while joining the reader
     */
    public static void runOffHeapPipeExample() throws InterruptedException {
        OffHeapPipeExample.main(new String[0]);
    }

    /**
     * Runs the README's ZeroMQ program, which prints {@code order} and {@code true 42}.
     */
    public static void runZmqExample() {
        ZmqExample.main(new String[0]);
    }
}

class PipeExample {
    public static void main(String[] args) throws InterruptedException {
        YPipe<String> pipe = new YPipe<>();
        YSemaphore wakeReader = new YSemaphore();          // one signal, one waiting thread

        Thread reader = new Thread(() -> {
            try {
                for (;;) {
                    String m = pipe.read();
                    if (m == null) {                       // empty: the reader is now asleep ...
                        wakeReader.await();                // ... until a flush finds it so and signals
                        continue;
                    }
                    if (m.equals("bye")) {
                        return;
                    }
                    System.out.println(m);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        reader.start();

        for (String m : List.of("hello", "world", "bye")) {
            pipe.write(m);                                 // write one or many ...
            if (!pipe.flush()) {                           // ... flush once: false = the reader sleeps
                wakeReader.signal(0);
            }
        }
        reader.join();
    }
}

class MailboxExample {
    static final int WRITERS = 3;
    static final int ORDERS_PER_WRITER = 100_000;

    record Order(int writer, int seq) { }                  // who sent it, and its number from that writer

    static final class Handler implements Consumer<Order> { // the reader's: touched by the reader only
        final int[] next = new int[WRITERS];
        long received;
        long outOfOrder;

        @Override
        public void accept(Order order) {
            if (order.seq() != next[order.writer()]++) {
                outOfOrder++;
            }
            received++;
        }
    }

    public static void main(String[] args) throws InterruptedException {
        // a YPollset carries the wake-ups; the reader adapts its spin to the traffic
        YMailbox<Order> mailbox = new YMailbox<Order>(new YPollset(), WaitPolicy.adaptive()).named("orders");
        Handler handler = new Handler();

        Thread reader = new Thread(() -> {
            try {
                while (mailbox.poll(handler) > 0) {        // sleeps until a writer flushed, then drains
                }                                          // 0: closed, and every order handed over
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        reader.start();

        Thread[] writers = new Thread[WRITERS];
        for (int w = 0; w < WRITERS; w++) {
            YMailbox.Writer<Order> out = mailbox.newWriter();  // one per writer thread: its own pipe
            int id = w;
            writers[w] = new Thread(() -> {
                for (int seq = 0; seq < ORDERS_PER_WRITER; seq++) {
                    out.send(new Order(id, seq));          // write + flush; signals a sleeping reader
                }
            });
            writers[w].start();
        }
        for (Thread writer : writers) {
            writer.join();
        }
        mailbox.close();                                   // wakes the reader; what was sent is still read
        reader.join();                                     // after it, the handler is ours to read
        System.out.println(handler.received + " orders from " + WRITERS + " writers, "
                + handler.outOfOrder + " out of order");
    }
}

class OffHeapPipeExample {
    static final int ORDERS = 1000;

    public static void main(String[] args) throws InterruptedException {
        try (OffHeapYPipe pipe = new OffHeapYPipe(4096).named("turnover")) { // a 4 KiB off-heap ring
            long[] turnover = new long[1];                     // the reader's; read after join
            int[] orders = new int[1];

            Thread reader = new Thread(() -> {
                boolean[] end = new boolean[1];
                // Each message is bytes [offset, offset + length) of the ring, valid until the
                // handler returns. The ring comes in NATIVE byte order: use absolute gets at offset.
                MessageHandler handler = (ring, offset, length) -> {
                    if (length == 0) {                         // the writer's "no more orders"
                        end[0] = true;
                        return;
                    }
                    long priceCents = ring.getLong(offset);
                    int quantity = ring.getInt(offset + 8);
                    turnover[0] += priceCents * quantity;
                    orders[0]++;
                };
                try {
                    while (!end[0]) {
                        if (pipe.readBatch(handler) == 0) {    // empty: the reader is now asleep ...
                            pipe.awaitMessage();               // ... until a flush wakes it
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            reader.start();

            // Build messages in the order the reader reads them: native. (ByteBuffer.allocate
            // alone is big-endian, and the reader's getLong would read other numbers, silently.)
            ByteBuffer order = ByteBuffer.allocate(12).order(ByteOrder.nativeOrder());
            for (int i = 1; i <= ORDERS; i++) {
                order.clear();
                order.putLong(i * 100L).putInt(i).flip();      // price in cents, quantity
                send(pipe, order);
            }
            send(pipe, ByteBuffer.allocate(0));                // an empty message ends the stream
            reader.join();                                     // after it, the counts are ours to read
            System.out.println(orders[0] + " orders, turnover " + turnover[0] + " cents");
        }                                                      // close() frees the ring
    }

    static void send(OffHeapYPipe pipe, ByteBuffer message) throws InterruptedException {
        while (!pipe.write(message, false)) {                  // the ring is full:
            pipe.flush();                                      // publish what is written,
            pipe.awaitSpace(message.remaining());              // wait until the reader frees room
        }
        pipe.flush();                                          // wakes the reader if it sleeps
    }
}

class ZmqExample {
    public static void main(String[] args) {
        try (ZmqContext ctx = ZmqContext.create()) {             // owns the I/O thread
            ZmqSocket pull = ctx.socket(SocketType.PULL);
            pull.setLinger(0);
            pull.bind("tcp://127.0.0.1:0");                      // port 0: the system picks one
            ZmqSocket push = ctx.socket(SocketType.PUSH);        // or libzmq's, pyzmq's, JeroMQ's
            push.setLinger(1000);                                // close waits at most 1 s to send
            push.connect(pull.lastEndpoint());

            push.send("order", ZmqSocket.SNDMORE);               // a message of two frames
            push.send("42", 0);
            System.out.println(pull.receiveString(0));           // order
            System.out.println(pull.hasReceiveMore() + " " + pull.receiveString(0)); // true 42
        }                                                        // closes both sockets, stops the thread
    }
}
