package org.ysuite.bench.ipc;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.function.Predicate;

/**
 * CPU time of a process's threads from Linux's {@code /proc/<pid>/task/<tid>/schedstat} (its
 * first field: nanoseconds on a CPU, with the scheduler's own clock), which is precise where
 * {@code /proc/<pid>/stat}'s utime and stime count clock ticks of 10 ms. A thread that ended
 * between two readings is missed by the second: readings are taken over periods in which the
 * measured threads live on.
 */
final class ProcCpu {

    private ProcCpu() {
    }

    /**
     * Sums the on-CPU time of the threads of process {@code pid} whose name ({@code comm},
     * at most 15 characters) passes {@code names}.
     *
     * @param pid the process
     * @param names which threads count
     * @return nanoseconds on a CPU; 0 if no thread passes
     * @throws IOException if {@code /proc} cannot be read (not Linux, or the process is gone)
     */
    static long nanos(long pid, Predicate<String> names) throws IOException {
        long sum = 0;
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Paths.get("/proc", Long.toString(pid), "task"))) {
            for (Path task : tasks) {
                try {
                    String comm = new String(Files.readAllBytes(task.resolve("comm")), StandardCharsets.UTF_8).trim();
                    if (names.test(comm)) {
                        String stat = new String(Files.readAllBytes(task.resolve("schedstat")), StandardCharsets.UTF_8);
                        sum += Long.parseLong(stat.substring(0, stat.indexOf(' ')));
                    }
                } catch (java.nio.file.NoSuchFileException e) {
                    // the thread ended while we looked
                }
            }
        }
        return sum;
    }

    /**
     * All threads' on-CPU time.
     *
     * @param pid the process
     * @return nanoseconds
     * @throws IOException if {@code /proc} cannot be read
     */
    static long process(long pid) throws IOException {
        return nanos(pid, name -> true);
    }
}
