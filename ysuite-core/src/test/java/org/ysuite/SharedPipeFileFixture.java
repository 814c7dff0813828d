package org.ysuite;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** The shared-pipe tests' file: {@code pipe} in a fresh directory (under /dev/shm where there is one). */
abstract class SharedPipeFileFixture {

    Path dir;
    Path file;

    @BeforeEach
    void makeDir() throws IOException {
        dir = SharedMessages.newDir("ysuite-" + getClass().getSimpleName());
        file = dir.resolve("pipe");
    }

    @AfterEach
    void removeDir() throws IOException {
        SharedMessages.removeDir(dir);
    }
}
