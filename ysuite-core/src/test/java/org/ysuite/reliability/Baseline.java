package org.ysuite.reliability;

import java.io.File;
import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Off-heap memory (the "direct" buffer pool, which also counts memory segments) and the open
 * descriptors of the kinds a signaler or pipe opens (sockets, pipes, eventfd, epoll: entries of
 * {@code /proc/self/fd} that are not regular files), to check that a test gives back all it took.
 * Regular files are left out: the JVM opens those on its own at any time (a jar for a class loaded
 * late, the test runner's report files), and none of the code these tests check opens one.
 */
final class Baseline {

    final long directBytes;
    final long directCount;
    final int fds;
    private final List<String> targets;

    private Baseline(long directBytes, long directCount, List<String> targets) {
        this.directBytes = directBytes;
        this.directCount = directCount;
        this.fds = targets == null ? -1 : targets.size();
        this.targets = targets;
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
        return new Baseline(bytes, count, descriptors());
    }

    /** Link targets of the open descriptors that are not regular files, or null without /proc. */
    private static List<String> descriptors() {
        String[] fds = new File("/proc/self/fd").list();
        if (fds == null) {
            return null;
        }
        List<String> targets = new ArrayList<>();
        for (String fd : fds) {
            try {
                String target = Files.readSymbolicLink(Path.of("/proc/self/fd", fd)).toString();
                if (target.startsWith("socket:") || target.startsWith("pipe:") || target.startsWith("anon_inode:")) {
                    targets.add(target);
                }
            } catch (IOException closedMeanwhile) {
                // the directory's own descriptor, or one closed since the listing
            }
        }
        return targets;
    }

    @Override
    public String toString() {
        return "direct=" + directBytes + " bytes in " + directCount + " buffers, fds=" + fds + " "
                + (targets == null || targets.size() <= 16 ? String.valueOf(targets) : targets.subList(0, 16) + "…");
    }

    /** Reads a count from a system property, for runs at the full size. */
    static int intProperty(String name, int ciDefault) {
        return Integer.getInteger(name, ciDefault);
    }
}
