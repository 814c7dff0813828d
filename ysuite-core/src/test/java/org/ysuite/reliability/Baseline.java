package org.ysuite.reliability;

import java.io.File;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;

/**
 * Off-heap memory (the "direct" buffer pool, which also counts memory segments) and open file
 * descriptors ({@code /proc/self/fd}) of this JVM, to check that a test gives back all it took.
 */
final class Baseline {

    final long directBytes;
    final long directCount;
    final int fds;

    private Baseline(long directBytes, long directCount, int fds) {
        this.directBytes = directBytes;
        this.directCount = directCount;
        this.fds = fds;
    }

    static Baseline now() {
        long bytes = -1;
        long count = -1;
        for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if (pool.getName().equals("direct")) {
                bytes = pool.getMemoryUsed();
                count = pool.getCount();
            }
        }
        String[] fds = new File("/proc/self/fd").list();
        return new Baseline(bytes, count, fds == null ? -1 : fds.length);
    }

    @Override
    public String toString() {
        return "direct=" + directBytes + " bytes in " + directCount + " buffers, fds=" + fds;
    }

    /** Reads a count from a system property, for runs at the full size. */
    static int intProperty(String name, int ciDefault) {
        return Integer.getInteger(name, ciDefault);
    }
}
