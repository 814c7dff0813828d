package org.ysuite.shared;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.ysuite.internal.OfdLock;
import org.ysuite.internal.Posix;

/**
 * The pipe file's life on the file system: its blocks allocated at create (a full tmpfs or a file
 * size limit is an {@link IOException} then, not a fault later), one open without following a
 * link, the owner and mode checks, the temporary files of killed creators, a missing directory,
 * a consumer that waits for the file, and deleting or replacing a file nobody holds.
 */
class SharedPipeFileTest extends SharedPipeFileFixture {

    private static final long HOUR = TimeUnit.HOURS.toNanos(1);

    // ---------------------------------------------------------------- allocation at create

    @Test
    void aRingLargerThanItsTmpfsFailsAtCreateNamingPathSizeAndFreeSpace() throws Exception {
        Path mnt = Files.createDirectory(dir.resolve("small"));
        assumeTrue(run("mount", "-t", "tmpfs", "-o", "size=1m", "ysuite-test", mnt.toString()) == 0,
                "mounting a private 1 MiB tmpfs needs root (CAP_SYS_ADMIN); the file size limit test covers the rest");
        try {
            Path pipe = mnt.resolve("pipe");
            IOException e = assertThrows(IOException.class,
                    () -> SharedYPipe.builder(pipe).capacity(2 << 20).createWriter().close());
            String m = e.getMessage();
            assertTrue(m.contains(pipe.toString()), m);
            assertTrue(m.contains((4096 + (2 << 20)) + " bytes"), m);
            assertTrue(m.contains("no space left") && m.contains("bytes free"), m);
            assertTrue(m.contains("/dev/shm is 64 MiB"), m);
            assertEquals(List.of(), list(mnt), "nothing left behind");

            // a ring that fits is allocated whole: it can be filled to the end without a fault
            try (SharedPipeWriter out = SharedYPipe.builder(pipe).capacity(512 << 10).createWriter()) {
                byte[] msg = new byte[1000];
                int n = 0;
                while (out.write(msg)) {
                    n++;
                }
                out.flush();
                assertTrue(n > 500, "messages written: " + n);
            }
        } finally {
            assertEquals(0, run("umount", mnt.toString()), "umount " + mnt);
        }
    }

    @Test
    void aFileSizeLimitIsAnIOExceptionAtCreate() throws Exception {
        Path pipe = dir.resolve("limited");
        // 2048 blocks is 1 MiB (dash, 512-byte blocks) or 2 MiB (bash): the 8 MiB ring exceeds both
        List<String> cmd = new ArrayList<>(List.of("sh", "-c", "ulimit -f 2048 && exec \"$0\" \"$@\"",
                Paths.get(System.getProperty("java.home"), "bin", "java").toString()));
        if (Runtime.version().feature() >= 24) {
            cmd.add("--enable-native-access=ALL-UNNAMED"); // else the JDK's warning leads the output
        }
        cmd.addAll(List.of("-Xmx64m", "-XX:+UseSerialGC", "-cp", SharedPipeChild.classPath(),
                Create.class.getName(), pipe.toString(), Integer.toString(8 << 20)));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out;
        try (InputStream in = p.getInputStream()) {
            out = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
        }
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the child ends");
        assertEquals(1, p.exitValue(), out);
        assertTrue(out.startsWith("IOException: cannot create the pipe file " + pipe.toAbsolutePath()), out);
        assertTrue(out.contains((4096 + (8 << 20)) + " bytes") && out.contains("file size limit"), out);
        assertEquals(List.of(), list(dir), "nothing left behind");
    }

    /** A child JVM's main: creates a pipe; prints the exception and exits 1 if that fails. */
    static final class Create {
        private Create() {
        }

        public static void main(String[] args) {
            try (SharedPipeWriter out = SharedYPipe.builder(Paths.get(args[0]))
                    .capacity(Integer.parseInt(args[1])).createWriter()) {
                System.out.println("created");
            } catch (IOException e) {
                System.out.println("IOException: " + e.getMessage());
                System.exit(1);
            }
        }
    }

    // ---------------------------------------------------------------- one open, owner, mode

    @Test
    void aSymbolicLinkAtThePathIsNotFollowed() throws Exception {
        Path link = dir.resolve("link");
        try (SharedPipeWriter out = SharedYPipe.createWriter(file, 4096)) {
            Files.createSymbolicLink(link, file);
            FileSystemException e = assertThrows(FileSystemException.class, () -> SharedYPipe.openReader(link));
            assertTrue(e.getMessage().contains(link.toString()) && e.getMessage().contains("symbolic link"),
                    e.getMessage());
            FileSystemException w = assertThrows(FileSystemException.class,
                    () -> SharedYPipe.builder(link).allowOtherUsers().openWriter());
            assertTrue(w.getMessage().contains("symbolic link"), w.getMessage());
            FileSystemException d = assertThrows(FileSystemException.class, () -> SharedYPipe.delete(link));
            assertTrue(d.getMessage().contains("symbolic link"), d.getMessage());
        }
        assertTrue(Files.exists(file) && Files.isSymbolicLink(link), "nothing deleted");
    }

    @Test
    void theDescriptorIsOpenedWithoutFollowingALink() throws Exception {
        // the descriptor is opened with O_NOFOLLOW: a link put at the path after any look is refused
        try (SharedPipeWriter out = SharedYPipe.createWriter(file, 4096)) {
            Path link = dir.resolve("link");
            Files.createSymbolicLink(link, file);
            FileSystemException e = assertThrows(FileSystemException.class, () -> Posix.openNoFollow(link, false));
            assertTrue(e.getMessage().contains(link.toString()) && e.getMessage().contains("symbolic link"),
                    e.getMessage());
        }
    }

    @Test
    void aFileOthersCanWriteIsRefusedUnlessAllowed() throws Exception {
        try (SharedPipeWriter out = SharedYPipe.createWriter(file, 4096)) {
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-rw-rw-"));
            FileSystemException e = assertThrows(FileSystemException.class, () -> SharedYPipe.openReader(file));
            assertTrue(e.getMessage().contains(file.toString()) && e.getMessage().contains("mode 0666")
                    && e.getMessage().contains("allowOtherUsers()"), e.getMessage());
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw--w----"));
            e = assertThrows(FileSystemException.class, () -> SharedYPipe.openReader(file));
            assertTrue(e.getMessage().contains("mode 0620"), e.getMessage());
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
            try (SharedPipeReader in = SharedYPipe.openReader(file)) { // only writable by others is refused
                assertNotNull(in);
            }
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-rw-rw-"));
            try (SharedPipeReader in = SharedYPipe.builder(file).allowOtherUsers().openReader()) {
                out.write(new byte[] {7});
                out.flush();
                byte[] buf = new byte[8];
                assertEquals(1, in.read(buf));
                assertEquals(7, buf[0]);
            }
        }
    }

    @Test
    void aFileOfAnotherUserIsRefusedUnlessAllowed() throws Exception {
        try (SharedPipeWriter out = SharedYPipe.createWriter(file, 4096)) {
            int other = Posix.libc().geteuid() == 65534 ? 65533 : 65534;
            boolean chowned;
            try {
                Files.setAttribute(file, "unix:uid", other);
                chowned = true;
            } catch (IOException e) {
                chowned = false;
            }
            assumeTrue(chowned, "giving a file to another user needs root (CAP_CHOWN)");
            FileSystemException e = assertThrows(FileSystemException.class, () -> SharedYPipe.openReader(file));
            assertTrue(e.getMessage().contains(file.toString()) && e.getMessage().contains("user id " + other),
                    e.getMessage());
            try (SharedPipeReader in = SharedYPipe.builder(file).allowOtherUsers().openReader()) {
                assertNotNull(in);
            }
        }
    }

    // ---------------------------------------------------------------- temporary files

    @Test
    void theTemporaryFilesOfKilledCreatorsAreRemovedAtTheNextCreate() throws Exception {
        FileTime old = FileTime.fromMillis(System.currentTimeMillis() - 3_600_000);
        Path dead = temp(".pipe.123.tmp", old);                 // a creator killed before it linked
        Path deadOld = temp(".pipe.9223372036854775807.tmp", old);
        Path fresh = temp(".pipe.456.tmp", null);                // a creator between its open and its lock
        Path live = temp(".pipe.789.tmp", old);                 // a live creator: it holds the lock
        Path otherPipe = temp(".other.1.tmp", old);              // another pipe's
        Path notOurs = temp(".pipe.x1.tmp", old);                // not the pattern
        Path linked = dir.resolve(".pipe.5.tmp");
        Files.createSymbolicLink(linked, notOurs);              // a link: never opened, never deleted
        int fd = Posix.openNoFollow(live, false);
        try {
            assertTrue(OfdLock.tryLock(fd, SharedPipeFile.lockByte(true), OfdLock.newFlock()));
            SharedYPipe.createWriter(file, 4096).close();
        } finally {
            Posix.closeQuietly(fd);
        }
        assertFalse(Files.exists(dead), "a dead creator's file is removed");
        assertFalse(Files.exists(deadOld), "a dead creator's file is removed");
        for (Path kept : List.of(fresh, live, otherPipe, notOurs)) {
            assertTrue(Files.exists(kept), kept + " is kept");
        }
        assertTrue(Files.isSymbolicLink(linked), "the link is kept");
        assertEquals(new TreeSet<>(List.of(".other.1.tmp", ".pipe.456.tmp", ".pipe.5.tmp", ".pipe.789.tmp",
                ".pipe.x1.tmp", "pipe")), new TreeSet<>(list(dir)));
    }

    private Path temp(String name, FileTime modified) throws IOException {
        Path p = Files.createFile(dir.resolve(name),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        if (modified != null) {
            Files.setLastModifiedTime(p, modified);
        }
        return p;
    }

    @Test
    void createWriterInAMissingDirectoryNamesTheDirectory() {
        Path missing = dir.resolve("x").resolve("y");
        NoSuchFileException e = assertThrows(NoSuchFileException.class,
                () -> SharedYPipe.createWriter(missing.resolve("pipe"), 4096));
        assertTrue(e.getMessage().contains("directory " + missing + " does not exist"), e.getMessage());
        assertFalse(e.getMessage().contains(".tmp"), e.getMessage());
    }

    // ---------------------------------------------------------------- lifecycle

    @Test
    void aConsumerStartedFirstWaitsForTheFile() throws Exception {
        Thread[] waiter = new Thread[1];
        CompletableFuture<SharedPipeReader> reader = new CompletableFuture<>();
        waiter[0] = new Thread(() -> {
            try {
                reader.complete(SharedYPipe.builder(file).awaitFile(1, TimeUnit.HOURS).peerCheck(1, TimeUnit.HOURS)
                        .openReader());
            } catch (Throwable t) {
                reader.completeExceptionally(t);
            }
        });
        waiter[0].start();
        // it is waiting (for the directory's events) before the file exists
        while (waiter[0].getState() != Thread.State.TIMED_WAITING && !reader.isDone()) {
            Thread.onSpinWait();
        }
        assertFalse(reader.isDone(), () -> "opened before the file existed: " + reader);
        try (SharedPipeWriter out = SharedYPipe.builder(file).capacity(4096).peerCheck(1, TimeUnit.HOURS).createWriter()) {
            out.write("first".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            try (SharedPipeReader in = reader.get(1, TimeUnit.MINUTES)) {
                assertTrue(in.awaitMessage());
                byte[] buf = new byte[16];
                int n = in.read(buf);
                assertArrayEquals("first".getBytes(StandardCharsets.US_ASCII), java.util.Arrays.copyOf(buf, n));
            }
        }
        waiter[0].join();
    }

    @Test
    void awaitFileEndsWithNoSuchFileExceptionAfterItsTime() {
        NoSuchFileException e = assertThrows(NoSuchFileException.class,
                () -> SharedYPipe.builder(file).awaitFile(20, TimeUnit.MILLISECONDS).openReader());
        assertTrue(e.getMessage().contains(file.toString()) && e.getMessage().contains("awaitFile"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> SharedYPipe.builder(file).awaitFile(-1, TimeUnit.SECONDS));
        assertThrows(IllegalArgumentException.class, () -> SharedYPipe.builder(file).awaitFile(2, TimeUnit.DAYS));
        NoSuchFileException d = assertThrows(NoSuchFileException.class, () -> SharedYPipe.builder(
                dir.resolve("none").resolve("pipe")).awaitFile(1, TimeUnit.HOURS).openReader());
        assertTrue(d.getMessage().contains("directory " + dir.resolve("none") + " does not exist"), d.getMessage());
    }

    @Test
    void deleteRefusesWhileALiveProcessHoldsASide() throws Exception {
        assertFalse(SharedYPipe.delete(file), "no file");
        SharedPipeWriter out = SharedYPipe.builder(file).capacity(4096).peerCheck(1, TimeUnit.HOURS).createWriter();
        PipeSideTakenException w = assertThrows(PipeSideTakenException.class, () -> SharedYPipe.delete(file));
        assertTrue(w.getMessage().contains("writer side") && w.getMessage().contains(
                "process " + ProcessHandle.current().pid()), w.getMessage());
        SharedPipeReader in = SharedYPipe.builder(file).peerCheck(1, TimeUnit.HOURS).openReader();
        out.close();
        PipeSideTakenException r = assertThrows(PipeSideTakenException.class, () -> SharedYPipe.delete(file));
        assertTrue(r.getMessage().contains("reader side"), r.getMessage());
        assertTrue(Files.exists(file));
        in.close();
        assertTrue(SharedYPipe.delete(file));
        assertFalse(Files.exists(file, LinkOption.NOFOLLOW_LINKS));
        assertFalse(SharedYPipe.delete(file));

        Files.write(file, new byte[8192]); // not a pipe file: never deleted
        IOException e = assertThrows(IOException.class, () -> SharedYPipe.delete(file));
        assertTrue(e.getMessage().contains("not a pipe file"), e.getMessage());
        assertTrue(Files.exists(file));
    }

    /**
     * A side that has marked CLOSED in the file but not yet dropped its lock is a close between
     * its mark and its unlock: a consumer that saw the mark and deletes waits for the unlock.
     */
    @Test
    void deleteWaitsForASideThatMarkedClosedToDropItsLock() throws Exception {
        SharedYPipe.createWriter(file, 4096).close(); // the writer's state in the file: CLOSED
        int fd = Posix.openNoFollow(file, false);
        CompletableFuture<Boolean> deleted;
        Thread deleter;
        try {
            assertTrue(OfdLock.tryLock(fd, SharedPipeFile.lockByte(true), OfdLock.newFlock()),
                    "the writer's lock, held as a closing writer holds it");
            deleted = new CompletableFuture<>();
            deleter = new Thread(() -> {
                try {
                    deleted.complete(SharedYPipe.delete(file));
                } catch (Throwable t) {
                    deleted.completeExceptionally(t);
                }
            });
            deleter.start();
            while (deleter.getState() != Thread.State.TIMED_WAITING && deleter.isAlive()) {
                Thread.onSpinWait(); // until the delete waits for the lock (or has given up)
            }
            assertFalse(deleted.isDone(), () -> "delete did not wait for the closing side: " + deleted);
        } finally {
            Posix.closeQuietly(fd); // the closing writer's unlock
        }
        assertTrue(deleted.get(60, TimeUnit.SECONDS));
        assertFalse(Files.exists(file, LinkOption.NOFOLLOW_LINKS));
    }

    @Test
    void replaceStaleReplacesAFileNobodyHoldsAndNoOther() throws Exception {
        try (SharedPipeWriter out = SharedYPipe.createWriter(file, 4096)) {
            out.write(new byte[] {1});
            out.flush();
        } // a clean run nobody deleted: the stale file keeps its unread message
        assertThrows(FileAlreadyExistsException.class, () -> SharedYPipe.createWriter(file, 4096));
        SharedPipeReader old = SharedYPipe.openReader(file);
        PipeSideTakenException e = assertThrows(PipeSideTakenException.class,
                () -> SharedYPipe.builder(file).capacity(4096).replaceStale().createWriter());
        assertTrue(e.getMessage().contains("reader side"), e.getMessage());
        old.close();
        try (SharedPipeWriter out = SharedYPipe.builder(file).capacity(8192).replaceStale().createWriter();
                SharedPipeReader in = SharedYPipe.openReader(file)) {
            assertEquals(8192, in.capacity(), "the new file");
            assertEquals(-1, in.read(new byte[8]), "nothing of the old file");
            assertThrows(PipeSideTakenException.class,
                    () -> SharedYPipe.builder(file).capacity(4096).replaceStale().createWriter());
        }
    }

    // ---------------------------------------------------------------- helpers

    private static List<String> list(Path d) throws IOException {
        try (Stream<Path> s = Files.list(d)) {
            return s.map(p -> p.getFileName().toString()).sorted().collect(Collectors.toList());
        }
    }

    private static int run(String... cmd) throws Exception {
        Process p;
        try {
            p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        } catch (IOException e) {
            return -1; // no such command
        }
        p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), String.join(" ", cmd));
        return p.exitValue();
    }
}
