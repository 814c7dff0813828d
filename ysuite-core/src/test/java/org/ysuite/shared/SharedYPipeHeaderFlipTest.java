package org.ysuite.shared;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.ysuite.internal.SharedPipeDescriptor;

/**
 * Another process rewriting record headers while the reader reads: {@code read} must use the
 * header it checked, never a second read of it (a double fetch that returned a record validated
 * as 8 bytes with another length). A thread of this JVM maps the file a second time and flips
 * every header slot between 8 (true) and 120 (past what was flushed) as fast as it can; whatever
 * the timing, each read returns 8 or refuses the record as corrupt. (On a read that fetches the
 * header twice the flip must land between the two fetches: that failed here within 2 s, with an
 * IndexOutOfBoundsException; the test passes whatever the timing on a correct read.)
 */
class SharedYPipeHeaderFlipTest extends SharedPipeFileFixture {

    @Test
    void aHeaderFlippedDuringReadIsUsedAsChecked() throws Exception {
        int capacity = 256;
        try (SharedPipeWriter out = SharedYPipe.createWriter(file, capacity);
                SharedPipeReader in = SharedYPipe.openReader(file);
                FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            MappedByteBuffer hostile = ch.map(FileChannel.MapMode.READ_WRITE, SharedPipeDescriptor.HEADER_SIZE, capacity);
            hostile.order(ByteOrder.nativeOrder());
            AtomicBoolean stop = new AtomicBoolean();
            Thread flipper = new Thread(() -> {
                for (int v = 0; !stop.get(); v++) {
                    int header = (v & 1) == 0 ? 8 : 120;
                    for (int at = 0; at < capacity; at += 16) {
                        hostile.putInt(at, header);
                    }
                }
            }, "flipper");
            flipper.setDaemon(true);
            flipper.start();
            byte[] msg = new byte[8];
            byte[] dst = new byte[capacity];
            int refused = 0;
            try {
                for (int i = 0; i < 200_000; i++) {
                    assertTrue(out.write(msg));
                    out.flush();
                    for (;;) {
                        try {
                            int n = in.read(dst);
                            assertEquals(8, n, "read " + i + " returned a length it did not check");
                            break;
                        } catch (IllegalStateException corrupt) {
                            assertTrue(corrupt.getMessage().contains("corrupt"), corrupt.getMessage());
                            refused++;
                        }
                    }
                }
            } finally {
                stop.set(true);
                flipper.join(10_000);
            }
            System.out.println("SharedYPipeHeaderFlipTest: 200000 reads, " + refused + " refused as corrupt");
        }
    }
}
