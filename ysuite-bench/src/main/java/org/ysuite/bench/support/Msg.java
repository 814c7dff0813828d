package org.ysuite.bench.support;

/** Shared constants of the benchmarks. */
public final class Msg {

    /** The message passed by the object transports: preallocated, so no boxing per message. */
    public static final Long MESSAGE = Long.valueOf(42);

    /** Capacity of every bounded peer (queues, rings) in the throughput scenarios. */
    public static final int CAPACITY = 4096;

    /** Credit window of the unbounded transports in the throughput scenarios. */
    public static final int WINDOW = 4096;

    /**
     * YPipe chunk size of the sender-batching scenario, where up to 1024 messages are written
     * before one flush: the window fits in a chunk, so the steady state allocates nothing. The
     * other scenarios use the default chunk (256).
     */
    public static final int CHUNK = 4096;

    /** JVM argument of every fork: a fixed heap. */
    public static final String HEAP = "-Xmx1g";

    /** JVM argument of every fork: lets jnr-ffi (YSocketPair) call native code on JDK 24+. */
    public static final String NATIVE = "--enable-native-access=ALL-UNNAMED";

    /** Agrona's UnsafeApi needs this in the forked JVM (the ysuite core does not). */
    public static final String AGRONA_OPENS = "--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED";

    private Msg() {
    }
}
