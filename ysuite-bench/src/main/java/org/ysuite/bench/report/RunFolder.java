package org.ysuite.bench.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;

/**
 * Where a report run writes: without {@code --out}, a new folder per run under the report's base
 * folder ({@code results/2026-12-06T02-15-00}, a second run in the same second gets {@code -2}),
 * so earlier runs are kept, and {@code results/latest} pointing at the newest; with {@code --out
 * DIR}, DIR itself, whose files of the same names the run overwrites.
 */
final class RunFolder {

    /** The name of the link (or, where links cannot be made, the text file) to the newest run. */
    static final String LATEST = "latest";
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH-mm-ss");

    private RunFolder() {
    }

    /**
     * Creates a new, empty run folder under {@code base}, named after the local date and time.
     *
     * @param base the report's base folder ({@code results}), created if missing
     * @param now the time the run starts
     * @return the new folder
     * @throws IOException if it cannot be created
     */
    static Path create(Path base, LocalDateTime now) throws IOException {
        Files.createDirectories(base);
        String stamp = STAMP.format(now);
        for (int n = 1; ; n++) {
            Path dir = base.resolve(n == 1 ? stamp : stamp + "-" + n);
            try {
                return Files.createDirectory(dir);
            } catch (java.nio.file.FileAlreadyExistsException e) {
                if (n >= 1000) {
                    throw new IOException("no free run folder under " + base + " for " + stamp + " (1000 taken)", e);
                }
            }
        }
    }

    /**
     * Points {@code base/latest} at {@code run}: a relative symbolic link, or, where the file
     * system refuses links, a text file {@code latest} holding the run folder's name.
     *
     * @param base the report's base folder
     * @param run a folder directly under it
     * @return what a user should open for the newest run ({@code base/latest}), or null where
     *     {@code base/latest} is a real folder (a run's {@code --out}), which is left alone
     * @throws IOException if neither the link nor the file can be written
     */
    static Path markLatest(Path base, Path run) throws IOException {
        Path latest = base.resolve(LATEST);
        if (Files.isDirectory(latest, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return null;
        }
        Files.deleteIfExists(latest); // a link (never followed) or the text file
        try {
            Files.createSymbolicLink(latest, run.getFileName());
        } catch (UnsupportedOperationException | IOException e) {
            Files.write(latest, (run.getFileName() + "\n").getBytes(StandardCharsets.UTF_8));
        }
        return latest;
    }
}
