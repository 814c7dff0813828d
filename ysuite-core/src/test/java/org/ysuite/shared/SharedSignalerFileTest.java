package org.ysuite.shared;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;

/**
 * Hostile and truncated {@link SharedSignaler} files: every check is an exception that names what
 * it found, the shared memory cannot be truncated, and nothing crashes the JVM.
 */
class SharedSignalerFileTest extends SharedPipeFileFixture {

    /** A reference file with the given fields, mode 0600. */
    private Path reference(long magic, int version, int senders, int pid, int fd, int length) throws IOException {
        Path ref = dir.resolve("ref");
        ByteBuffer b = ByteBuffer.allocate(32).order(ByteOrder.nativeOrder());
        b.putLong(magic).putInt(version).putInt(senders).putInt(pid).putInt(fd).putLong(-1L);
        Files.write(ref, java.util.Arrays.copyOf(b.array(), length));
        Files.setPosixFilePermissions(ref, PosixFilePermissions.fromString("rw-------"));
        return ref;
    }

    private static String refused(Path ref) {
        return assertThrows(IOException.class, () -> SharedSignaler.openSender(ref)).getMessage();
    }

    private static int pid() {
        return (int) ProcessHandle.current().pid();
    }

    @Test
    void aTruncatedOrForeignReferenceFileIsRefused() throws Exception {
        String m = refused(reference(SharedSignalerFile.REF_MAGIC, 1, 1, pid(), 0, 20));
        assertTrue(m.contains("20 bytes") && m.contains("truncated"), m);
        m = refused(reference(SharedSignalerFile.REF_MAGIC, 1, 1, pid(), 0, 0));
        assertTrue(m.contains("0 bytes"), m);
        m = refused(reference(0x1234L, 1, 1, pid(), 0, 32));
        assertTrue(m.contains("wrong magic"), m);
        m = refused(reference(SharedSignalerFile.REF_MAGIC, 9, 1, pid(), 0, 32));
        assertTrue(m.contains("unsupported signaler file version 9"), m);
        m = refused(reference(SharedSignalerFile.REF_MAGIC, 1, 0, pid(), 0, 32));
        assertTrue(m.contains("senders 0"), m);
        m = refused(reference(SharedSignalerFile.REF_MAGIC, 1, Integer.MAX_VALUE, pid(), 0, 32));
        assertTrue(m.contains("senders " + Integer.MAX_VALUE), m);
        m = refused(reference(SharedSignalerFile.REF_MAGIC, 1, 1, -5, 0, 32));
        assertTrue(m.contains("process -5"), m);
    }

    @Test
    void aReferenceToSomethingOtherThanASealedMemfdIsRefused() throws Exception {
        Path plain = dir.resolve("plain");
        Files.write(plain, new byte[4096]);
        try (FileChannel ch = FileChannel.open(plain, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            int fd = openFds(plain);
            String m = refused(reference(SharedSignalerFile.REF_MAGIC, 1, 1, pid(), fd, 32));
            assertTrue(m.contains("is not a sealed memfd"), m);
        }
        String m = refused(reference(SharedSignalerFile.REF_MAGIC, 1, 1, pid(), 99_999, 32));
        assertTrue(m.contains("is gone"), m);
    }

    @Test
    void aSealedMemfdOfAnotherSizeOrHeaderIsRefused() throws Exception {
        try (SharedSignaler owner = SharedSignaler.create(dir.resolve("sig"), 2)) {
            ByteBuffer real = SharedSignalerFile.readReference(owner.path());
            int fd = real.getInt(20);
            String m = refused(reference(SharedSignalerFile.REF_MAGIC, 1, 300, pid(), fd, 32));
            assertTrue(m.contains("memfd size 4096 is not 4928"), m);
            m = refused(reference(SharedSignalerFile.REF_MAGIC, 1, 3, pid(), fd, 32));
            assertTrue(m.contains("is not a signaler of version 1 with 3 senders"), m);
        }
    }

    @Test
    void theSharedMemoryCannotBeTruncatedNorGrown() throws Exception {
        try (SharedSignaler owner = SharedSignaler.create(dir.resolve("sig"), 1);
                SharedSignalSender sender = SharedSignaler.openSender(dir.resolve("sig"))) {
            int fd = SharedSignalerFile.readReference(owner.path()).getInt(20);
            Path memfd = Path.of("/proc/" + pid() + "/fd/" + fd);
            try (FileChannel ch = FileChannel.open(memfd, StandardOpenOption.WRITE)) {
                IOException e = assertThrows(IOException.class, () -> ch.truncate(0));
                assertTrue(e.getMessage().contains("not permitted"), e.getMessage());
                assertThrows(IOException.class, () -> ch.write(ByteBuffer.allocate(1), 1 << 20));
                assertEquals(4096, ch.size());
            }
            sender.signal(7);
            assertEquals(1 << 7, owner.check(), "still working");
        }
    }

    @Test
    void aSymbolicLinkOrAGroupWritableReferenceIsRefused() throws Exception {
        try (SharedSignaler owner = SharedSignaler.create(dir.resolve("sig"), 1)) {
            Path link = Files.createSymbolicLink(dir.resolve("link"), owner.path());
            assertThrows(FileSystemException.class, () -> SharedSignaler.openSender(link));
            Files.setPosixFilePermissions(owner.path(), PosixFilePermissions.fromString("rw-rw-rw-"));
            String m = assertThrows(FileSystemException.class, () -> SharedSignaler.openSender(owner.path()))
                    .getMessage();
            assertTrue(m.contains("lets group or others write it"), m);
        }
    }

    @Test
    void createRefusesAFileThatIsNotASignalers() throws Exception {
        Path other = dir.resolve("other");
        Files.write(other, new byte[] {1, 2, 3});
        String m = assertThrows(java.nio.file.FileAlreadyExistsException.class,
                () -> SharedSignaler.create(other, 1)).getMessage();
        assertTrue(m.contains("not a stale signaler file"), m);
        assertEquals(3, Files.size(other), "left as it was");
    }

    /** The descriptor number under which this process has {@code file} open (the newest one). */
    private static int openFds(Path file) throws IOException {
        int found = -1;
        try (java.util.stream.Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path p : (Iterable<Path>) fds::iterator) {
                try {
                    if (Files.readSymbolicLink(p).equals(file.toAbsolutePath())) {
                        found = Math.max(found, Integer.parseInt(p.getFileName().toString()));
                    }
                } catch (IOException gone) {
                    // the listing's own descriptor
                }
            }
        }
        assertTrue(found >= 0, "no descriptor of " + file);
        return found;
    }
}
