package org.ysuite.agrona;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** The tests' directories (under /dev/shm where there is one) and their look at a sleeping thread. */
final class TestDirs {

    private TestDirs() {
    }

    static Path newDir(String prefix) throws IOException {
        Path shm = Path.of("/dev/shm");
        return Files.isDirectory(shm) && Files.isWritable(shm)
                ? Files.createTempDirectory(shm, prefix) : Files.createTempDirectory(prefix);
    }

    static void removeDir(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).collect(Collectors.toList())) {
                Files.deleteIfExists(p);
            }
        }
    }

    /**
     * Waits (yielding, at most 60 s) until the strategy says its loop sleeps and the loop's native
     * thread is asleep in the kernel (a JNI call shows as RUNNABLE to Java).
     */
    static void awaitSleeping(SharedSignalerIdleStrategy idle, Thread loop) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!idle.isSleeping() || !nativeThreadSleeps(loop.getName())) {
            if (System.nanoTime() > deadline) {
                fail("the loop never slept: " + idle);
            }
            Thread.yield();
        }
    }

    static boolean nativeThreadSleeps(String name) throws IOException {
        String comm = name.length() > 15 ? name.substring(0, 15) : name;
        List<Path> tasks;
        try (Stream<Path> list = Files.list(Path.of("/proc/self/task"))) {
            tasks = list.collect(Collectors.toList());
        }
        for (Path task : tasks) {
            try {
                if (Files.readString(task.resolve("comm")).trim().equals(comm)) {
                    String stat = Files.readString(task.resolve("stat"));
                    return stat.charAt(stat.lastIndexOf(')') + 2) == 'S';
                }
            } catch (IOException gone) {
                // a thread that ended meanwhile
            }
        }
        return false;
    }
}
