package org.ysuite.shared;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.ysuite.internal.Posix;

/**
 * Creating a shared pipe where something else is: the error names what is there (a directory, a
 * file that is not a pipe file, a pipe file), the errno's meaning, and the way out; nothing that
 * is not a pipe file is ever deleted, also with {@code replaceStale()}.
 */
class SharedPipeCreateErrorsTest extends SharedPipeFileFixture {

    private static String message(IOException e) {
        return e.getMessage();
    }

    @Test
    void aDirectoryIsNamedAsADirectoryWithOrWithoutReplaceStale() throws IOException {
        Path sub = Files.createDirectory(dir.resolve("sub"));
        for (boolean replace : new boolean[] {false, true}) {
            SharedYPipe.Builder b = SharedYPipe.builder(sub).capacity(4096);
            if (replace) {
                b.replaceStale();
            }
            FileAlreadyExistsException e = assertThrows(FileAlreadyExistsException.class, b::createWriter);
            assertTrue(message(e).contains("a directory is there, not a pipe file: name a file"), message(e));
            assertTrue(message(e).contains(sub.resolve("orders").toString()), message(e));
            assertFalse(message(e).contains("errno"), message(e));
            assertTrue(Files.isDirectory(sub), "left alone");
        }
    }

    @Test
    void aTextFileIsNamedAsNotAPipeFileAndLeftAlone() throws IOException {
        Files.writeString(file, "notes\n");
        for (boolean replace : new boolean[] {false, true}) {
            SharedYPipe.Builder b = SharedYPipe.builder(file).capacity(4096);
            if (replace) {
                b.replaceStale();
            }
            FileAlreadyExistsException e = assertThrows(FileAlreadyExistsException.class, b::createWriter);
            assertTrue(message(e).contains("a file that is not a pipe file is there (6 bytes, no \"YSPIPE01\""
                    + " magic number): remove it or name another file"), message(e));
            assertTrue(message(e).contains("replaceStale() replaces only a pipe file"), message(e));
            assertEquals("notes\n", Files.readString(file), "left alone");
        }
    }

    @Test
    void aPipeFileNamesOpenWriterAndReplaceStale() throws IOException {
        try (SharedPipeWriter first = SharedYPipe.createWriter(file, 4096)) {
            FileAlreadyExistsException e = assertThrows(FileAlreadyExistsException.class,
                    () -> SharedYPipe.createWriter(file, 4096));
            assertTrue(message(e).contains("a pipe file exists there: SharedYPipe.builder(file).openWriter()"
                    + " opens its writer side"), message(e));
            assertTrue(message(e).contains("replaceStale().createWriter() replaces it if no live process"
                    + " holds it"), message(e));
        }
    }

    @Test
    void aDirectoryThatTakesNoFileSaysSoWithTheErrnoMeaning() {
        Path sys = Path.of("/sys");
        // sysfs takes no new regular file from anyone, root included (EACCES): Linux only.
        assertTrue(Files.isDirectory(sys), "the shared pipe is Linux-only, and Linux has /sys");
        Path target = sys.resolve("ysuite-test-pipe");
        IOException e = assertThrows(IOException.class, () -> SharedYPipe.createWriter(target, 4096));
        assertTrue(message(e).startsWith("cannot create the pipe file " + target + ": the directory /sys"
                + " takes no new file from this process ("), message(e));
        assertTrue(message(e).matches(".*failed: errno \\d+ \\(E[A-Z]+: [a-z -]+\\).*"), message(e));
        assertTrue(message(e).contains("such as /dev/shm"), message(e));
        assertFalse(Files.exists(target));
    }

    @Test
    void errnoIsNamedWithItsMeaning() {
        assertEquals("open(/x) failed: errno 21 (EISDIR: is a directory)", Posix.failure("open(/x)", 21));
        assertEquals("errno 13 (EACCES: permission denied)", Posix.describe(13));
        assertEquals("errno 4242", Posix.describe(4242));
    }
}
