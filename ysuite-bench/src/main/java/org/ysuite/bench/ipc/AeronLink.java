package org.ysuite.bench.ipc;

import io.aeron.Aeron;
import io.aeron.ExclusivePublication;
import io.aeron.Image;
import io.aeron.Publication;
import io.aeron.Subscription;
import io.aeron.driver.MediaDriver;
import io.aeron.logbuffer.FragmentHandler;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.agrona.CloseHelper;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Aeron IPC ({@code aeron:ipc}, one exclusive publication and one subscription each way, stream
 * 1001 parent to child, 1002 back). The parent's JVM runs the media driver embedded, with its
 * default settings (dedicated threading, default idle strategies) and its directory in the run's
 * folder under {@code /dev/shm}, deleted when it closes. Both ends poll with the named idle
 * strategy: {@code busyspin} ({@link BusySpinIdleStrategy}), {@code backoff}
 * ({@link BackoffIdleStrategy} with Agrona's defaults: spin, yield, then park 1 us doubling to
 * 1 ms), or {@code sleep1ms} ({@link SleepingMillisIdleStrategy} of 1 ms). Every message here
 * fits one fragment (the IPC MTU is 1408 bytes).
 */
final class AeronLink implements Link {

    private static final String CHANNEL = "aeron:ipc";
    private static final int TO_CHILD = 1001;
    private static final int TO_PARENT = 1002;
    private static final long CONNECT_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(30);
    private static final long SEND_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(30);

    private final MediaDriver driver;
    private final Aeron aeron;
    private final ExclusivePublication out;
    private final Subscription in;
    private final IdleStrategy idle;
    private final UnsafeBuffer src = new UnsafeBuffer(new byte[0]);
    private final FragmentHandler copy;
    private Image image;
    private byte[] dst;
    private int received;

    private AeronLink(MediaDriver driver, Path dir, String idleName, int outStream, int inStream) {
        this.driver = driver;
        this.idle = idle(idleName);
        this.aeron = Aeron.connect(new Aeron.Context().aeronDirectoryName(aeronDir(dir).toString()));
        this.out = aeron.addExclusivePublication(CHANNEL, outStream);
        this.in = aeron.addSubscription(CHANNEL, inStream);
        this.copy = (buffer, offset, length, header) -> {
            buffer.getBytes(offset, dst, 0, length);
            received = length;
        };
    }

    static IdleStrategy idle(String name) {
        switch (name) {
            case "busyspin":
                return new BusySpinIdleStrategy();
            case "backoff":
                return new BackoffIdleStrategy();
            case "sleep1ms":
                return new SleepingMillisIdleStrategy(1);
            default:
                throw new IllegalArgumentException("unknown Aeron idle strategy: " + name
                        + " (busyspin, backoff or sleep1ms)");
        }
    }

    private static Path aeronDir(Path dir) {
        return dir.resolve("aeron");
    }

    static Link.Pending listen(Path dir, String idleName) throws IOException {
        idle(idleName); // a bad name fails before the driver starts
        MediaDriver driver = MediaDriver.launch(new MediaDriver.Context()
                .aeronDirectoryName(aeronDir(dir).toString())
                .dirDeleteOnStart(true)
                .dirDeleteOnShutdown(true));
        AeronLink link;
        try {
            link = new AeronLink(driver, dir, idleName, TO_CHILD, TO_PARENT);
        } catch (RuntimeException e) {
            driver.close();
            throw e;
        }
        return new Link.Pending() {
            @Override
            public Link accept() throws IOException {
                link.awaitConnected();
                return link;
            }

            @Override
            public void close() {
                link.close();
            }
        };
    }

    static Link connect(Path dir, String idleName) throws IOException {
        AeronLink link = new AeronLink(null, dir, idleName, TO_PARENT, TO_CHILD);
        try {
            link.awaitConnected();
        } catch (IOException | RuntimeException e) {
            link.close();
            throw e;
        }
        return link;
    }

    private void awaitConnected() throws IOException {
        long deadline = System.nanoTime() + CONNECT_TIMEOUT_NANOS;
        IdleStrategy wait = new SleepingMillisIdleStrategy(1);
        while (!out.isConnected() || in.imageCount() == 0) {
            if (System.nanoTime() - deadline > 0) {
                throw new IOException("Aeron IPC did not connect within 30 s (publication connected: "
                        + out.isConnected() + ", images: " + in.imageCount() + ")");
            }
            wait.idle();
        }
        image = in.imageAtIndex(0);
    }

    @Override
    public void send(byte[] msg, int length) throws IOException {
        if (src.byteArray() != msg) {
            src.wrap(msg);
        }
        long result = out.offer(src, 0, length);
        if (result > 0) {
            return;
        }
        long deadline = System.nanoTime() + SEND_TIMEOUT_NANOS;
        idle.reset();
        while ((result = out.offer(src, 0, length)) < 0) {
            if (result == Publication.CLOSED || result == Publication.MAX_POSITION_EXCEEDED
                    || (result == Publication.NOT_CONNECTED && !image.isClosed() && image.isEndOfStream())) {
                throw new IOException("Aeron publication refused the message: " + Publication.errorString(result));
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IOException("Aeron publication: no room for 30 s (" + Publication.errorString(result) + ")");
            }
            idle.idle();
        }
    }

    @Override
    public int receive(byte[] dst) throws IOException {
        this.dst = dst;
        idle.reset();
        for (;;) {
            if (image.poll(copy, 1) > 0) {
                return received;
            }
            if (image.isClosed() || image.isEndOfStream()) {
                return -1;
            }
            idle.idle();
        }
    }

    @Override
    public void closeOutput() {
        out.close();
    }

    @Override
    public void close() {
        CloseHelper.closeAll(out, in, aeron, driver);
    }
}
