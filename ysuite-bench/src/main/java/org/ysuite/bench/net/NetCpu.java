package org.ysuite.bench.net;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * A process's CPU time, summed over its threads from Linux's
 * {@code /proc/<pid>/task/<tid>/schedstat} (first field: nanoseconds on a CPU), precise where
 * {@code /proc/<pid>/stat} counts 10 ms ticks. A thread that ends between two readings drops out
 * of the second: the network runs read it around measurements in which the threads live on.
 * Off Linux every reading is NaN.
 */
public final class NetCpu {

    private NetCpu() {
    }

    /**
     * Returns the on-CPU time of every thread of process {@code pid}.
     *
     * @param pid the process
     * @return nanoseconds; NaN if {@code /proc} cannot be read (not Linux, or the process is gone)
     */
    public static double nanos(long pid) {
        long sum = 0;
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Paths.get("/proc", Long.toString(pid), "task"))) {
            for (Path task : tasks) {
                try {
                    String stat = new String(Files.readAllBytes(task.resolve("schedstat")), StandardCharsets.US_ASCII);
                    sum += Long.parseLong(stat.substring(0, stat.indexOf(' ')));
                } catch (NoSuchFileException e) {
                    // the thread ended while we looked
                }
            }
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
        return sum;
    }

    /**
     * This process's CPU time.
     *
     * @return nanoseconds; NaN off Linux
     */
    public static double self() {
        return nanos(ProcessHandle.current().pid());
    }

    /**
     * Returns the voluntary context switches of one thread (the times it blocked: a sleep and
     * later a wake-up each), from {@code /proc/self/task/<tid>/status}.
     *
     * @param tid the thread's Linux id ({@link #tids(String)})
     * @return the count; -1 if it cannot be read
     */
    public static long voluntarySwitches(long tid) {
        try {
            for (String line : Files.readAllLines(Paths.get("/proc/self/task", Long.toString(tid), "status"))) {
                if (line.startsWith("voluntary_ctxt_switches:")) {
                    return Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                }
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return -1;
    }

    /**
     * Returns the Linux ids of this process's threads whose name ({@code comm}, at most 15
     * characters) starts with {@code prefix}.
     *
     * @param prefix the name's start
     * @return the ids, in no order; empty off Linux
     */
    public static long[] tids(String prefix) {
        java.util.List<Long> out = new java.util.ArrayList<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Paths.get("/proc/self/task"))) {
            for (Path task : tasks) {
                try {
                    String comm = new String(Files.readAllBytes(task.resolve("comm")), StandardCharsets.UTF_8).trim();
                    if (comm.startsWith(prefix)) {
                        out.add(Long.parseLong(task.getFileName().toString()));
                    }
                } catch (NoSuchFileException e) {
                    // ended
                }
            }
        } catch (IOException e) {
            return new long[0];
        }
        return out.stream().mapToLong(Long::longValue).toArray();
    }
}
