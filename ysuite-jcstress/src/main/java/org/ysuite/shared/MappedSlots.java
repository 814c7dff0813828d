package org.ysuite.shared;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Slots of one memory-mapped file (in {@code /dev/shm} where there is one), mapped once and
 * handed out round robin, each zeroed when it is handed out: the shared memory of the races over
 * a pipe file's header ({@link SharedWordsRaces}; with its ring, {@link SharedPipeCountersRaces}) and of a signaler's word ({@link SharedSignalerRaces}). There are far
 * more slots than jcstress keeps states alive at once, so no two live states share one.
 */
final class MappedSlots {

    private final int slotSize;
    private final int count;
    private final ByteBuffer map;
    private final AtomicInteger next = new AtomicInteger();

    /**
     * @param slotSize bytes per slot, a multiple of 8
     * @param count slots, a power of two
     */
    MappedSlots(int slotSize, int count) {
        this.slotSize = slotSize;
        this.count = count;
        try {
            Path shm = Path.of("/dev/shm");
            Path file = Files.createTempFile(Files.isDirectory(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir")),
                    "ysuite-jcstress", ".map");
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                map = ch.map(FileChannel.MapMode.READ_WRITE, 0, (long) slotSize * count).order(ByteOrder.nativeOrder());
            } finally {
                Files.delete(file); // the mapping stays
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The next slot, zeroed, in native byte order. */
    ByteBuffer next() {
        int i = next.getAndIncrement() & (count - 1);
        ByteBuffer slot = map.slice(i * slotSize, slotSize).order(ByteOrder.nativeOrder());
        for (int at = 0; at < slotSize; at += 8) {
            slot.putLong(at, 0L);
        }
        return slot;
    }
}
