package org.ysuite.internal;

import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.ref.Cleaner;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A cache-line-aligned block of off-heap memory that can be freed deterministically, without
 * {@code --add-opens} on any supported JDK.
 *
 * <ul>
 *   <li>JDK 22 and later: a shared {@code java.lang.foreign.Arena} (looked up reflectively, since
 *       the library compiles for 17). Closing the arena frees the memory; a stale view of it then
 *       throws {@link IllegalStateException} instead of touching freed memory. A shared arena is
 *       never freed by the garbage collector, so {@link #freeWhenUnreachable} registers a
 *       {@link Cleaner} that closes it once its holder is gone, in case nobody called
 *       {@link #free()}.
 *   <li>JDK 17 to 21: an over-allocated direct {@link ByteBuffer}, sliced to the alignment, freed
 *       by {@code sun.misc.Unsafe.invokeCleaner} (module {@code jdk.unsupported}, open to all).
 *       Callers must make sure no thread touches the memory after {@link #free()}. If that method
 *       is missing, the memory is left to the buffer's cleaner (freed when it is unreachable).
 * </ul>
 */
public final class DirectMemory {

    private static final MethodHandle ARENA_OF_SHARED;
    private static final MethodHandle ARENA_ALLOCATE;
    private static final MethodHandle ARENA_CLOSE;
    private static final MethodHandle SEGMENT_AS_BYTE_BUFFER;
    private static final MethodHandle INVOKE_CLEANER;
    /** {@code FileChannel.map(MapMode, long, long, Arena)} (JDK 22+), or null. */
    private static final MethodHandle CHANNEL_MAP;
    private static final Cleaner CLEANER = Cleaner.create();

    static {
        MethodHandle ofShared = null;
        MethodHandle allocate = null;
        MethodHandle close = null;
        MethodHandle asByteBuffer = null;
        MethodHandle invokeCleaner = null;
        MethodHandle channelMap = null;
        if (Runtime.version().feature() >= 22) {
            try {
                MethodHandles.Lookup lookup = MethodHandles.publicLookup();
                Class<?> arena = Class.forName("java.lang.foreign.Arena");
                Class<?> segment = Class.forName("java.lang.foreign.MemorySegment");
                ofShared = lookup.findStatic(arena, "ofShared", MethodType.methodType(arena));
                allocate = lookup.findVirtual(arena, "allocate",
                        MethodType.methodType(segment, long.class, long.class));
                close = lookup.findVirtual(arena, "close", MethodType.methodType(void.class));
                asByteBuffer = lookup.findVirtual(segment, "asByteBuffer",
                        MethodType.methodType(ByteBuffer.class));
                channelMap = lookup.findVirtual(FileChannel.class, "map", MethodType.methodType(
                        segment, FileChannel.MapMode.class, long.class, long.class, arena));
            } catch (ReflectiveOperationException e) {
                ofShared = null;
            }
        }
        if (ofShared == null) {
            try {
                Class<?> unsafeClass = Class.forName("sun.misc.Unsafe");
                Field theUnsafe = unsafeClass.getDeclaredField("theUnsafe");
                theUnsafe.setAccessible(true);
                invokeCleaner = MethodHandles.publicLookup()
                        .findVirtual(unsafeClass, "invokeCleaner",
                                MethodType.methodType(void.class, ByteBuffer.class))
                        .bindTo(theUnsafe.get(null));
            } catch (ReflectiveOperationException | RuntimeException e) {
                invokeCleaner = null; // the cleaner frees the memory once the buffer is unreachable
            }
        }
        ARENA_OF_SHARED = ofShared;
        ARENA_ALLOCATE = allocate;
        ARENA_CLOSE = close;
        SEGMENT_AS_BYTE_BUFFER = asByteBuffer;
        INVOKE_CLEANER = invokeCleaner;
        CHANNEL_MAP = channelMap;
    }

    private final ByteBuffer buffer;
    private final Object owner; // the Arena, or the unsliced direct buffer
    private final AtomicBoolean freed = new AtomicBoolean();

    private DirectMemory(ByteBuffer buffer, Object owner) {
        this.buffer = buffer.order(ByteOrder.nativeOrder());
        this.owner = owner;
    }

    /**
     * Allocates {@code bytes} bytes starting on an {@code alignment}-byte boundary.
     *
     * @param bytes the size
     * @param alignment a power of two
     * @return the memory, zeroed
     */
    public static DirectMemory allocate(int bytes, int alignment) {
        if (ARENA_OF_SHARED != null) {
            try {
                Object arena = ARENA_OF_SHARED.invoke();
                Object segment = ARENA_ALLOCATE.invoke(arena, (long) bytes, (long) alignment);
                return new DirectMemory((ByteBuffer) SEGMENT_AS_BYTE_BUFFER.invoke(segment), arena);
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable e) {
                throw new IllegalStateException("cannot allocate " + bytes + " off-heap bytes", e);
            }
        }
        ByteBuffer raw = ByteBuffer.allocateDirect(bytes + alignment - 1);
        int skip = raw.alignmentOffset(0, alignment);
        int start = skip == 0 ? 0 : alignment - skip;
        return new DirectMemory(raw.slice(start, bytes), raw);
    }

    /**
     * Maps {@code size} bytes of {@code channel} from offset 0, read-write and shared: on JDK 22+
     * into a shared arena (so {@link #free()} unmaps it and a stale view throws), before that as
     * a {@link java.nio.MappedByteBuffer} that {@link #free()} unmaps with
     * {@code Unsafe.invokeCleaner}. The channel may be closed afterwards; the mapping stays.
     *
     * @param channel a channel open for reading and writing
     * @param size the bytes to map, at most {@link Integer#MAX_VALUE}
     * @return the mapping
     * @throws IOException if mapping fails
     */
    public static DirectMemory map(FileChannel channel, long size) throws IOException {
        if (CHANNEL_MAP != null) {
            Object arena = null;
            try {
                arena = ARENA_OF_SHARED.invoke();
                Object segment = CHANNEL_MAP.invoke(channel, FileChannel.MapMode.READ_WRITE, 0L, size, arena);
                return new DirectMemory((ByteBuffer) SEGMENT_AS_BYTE_BUFFER.invoke(segment), arena);
            } catch (IOException | RuntimeException | Error e) {
                closeQuietly(arena);
                throw e;
            } catch (Throwable e) {
                closeQuietly(arena);
                throw new IOException("cannot map " + size + " bytes", e);
            }
        }
        ByteBuffer mapped = channel.map(FileChannel.MapMode.READ_WRITE, 0L, size);
        return new DirectMemory(mapped, mapped);
    }

    private static void closeQuietly(Object arena) {
        if (arena != null) {
            try {
                ARENA_CLOSE.invoke(arena);
            } catch (Throwable ignored) {
                // the failure being reported matters more
            }
        }
    }

    /** Returns the memory as a direct buffer in native byte order. */
    public ByteBuffer buffer() {
        return buffer;
    }

    /**
     * Frees the memory once {@code holder} is unreachable, unless {@link #free()} came first. Only
     * the arena needs it: a direct buffer's own cleaner frees it once no view of it is left, and
     * freeing it earlier could pull memory from under a view a careless caller kept.
     *
     * @param holder the object whose life bounds the memory's; the memory must not refer to it
     */
    public void freeWhenUnreachable(Object holder) {
        if (ARENA_CLOSE != null) {
            DirectMemory self = this; // the action must not capture the holder
            CLEANER.register(holder, self::free);
        }
    }

    /** Frees the memory (once; later calls do nothing), when no thread can touch it any more. */
    /** Test seam: true once {@link #free()} has run. */
    public boolean isFreed() {
        return freed.get();
    }

    public void free() {
        if (!freed.compareAndSet(false, true)) {
            return;
        }
        try {
            if (ARENA_CLOSE != null) {
                ARENA_CLOSE.invoke(owner);
            } else if (INVOKE_CLEANER != null) {
                INVOKE_CLEANER.invokeExact((ByteBuffer) owner);
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("cannot free off-heap memory", e);
        }
    }
}
