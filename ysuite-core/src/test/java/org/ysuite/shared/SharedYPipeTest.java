package org.ysuite.shared;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.ysuite.internal.SharedPipeDescriptor;

/** The shared pipe's file and both sides together, in this JVM (the OFD locks make them two owners). */
class SharedYPipeTest extends SharedPipeFileFixture {




    @Test
    void createsA0600FileOfHeaderPlusCapacity() throws Exception {
        try (SharedPipeWriter out = SharedYPipe.createWriter(file, 4096)) {
            assertEquals(4096 + 4096, Files.size(file));
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
            assertEquals(4096, out.capacity());
            assertEquals(2044, out.maxMessageLength());
            assertEquals(file.toAbsolutePath(), out.file());
            assertThrows(FileAlreadyExistsException.class, () -> SharedYPipe.createWriter(file, 4096));
        }
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(List.of(file), files.collect(Collectors.toList()), "no temporary file is left");
        }
    }

    @Test
    void twoThreadsExchangeCheckedMessagesThroughSleepsBothWays() throws Exception {
        int count = 200_000;
        try (SharedPipeWriter out = SharedYPipe.builder(file).capacity(4096).createWriter();
                SharedPipeReader in = SharedYPipe.openReader(file)) {
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread writer = new Thread(() -> {
                try {
                    SharedMessages messages = new SharedMessages(7, 600);
                    for (long seq = 0; seq < count; seq++) {
                        int length = messages.make(seq);
                        while (!out.write(messages.bytes(), 0, length, false)) {
                            out.flush();
                            out.awaitSpace(length);
                        }
                        if ((seq & 3) == 0) {
                            out.flush();
                        }
                    }
                    out.flush();
                } catch (Throwable t) {
                    failure.set(t);
                }
            }, "shared-writer");
            writer.setDaemon(true); // a thread stuck by a failed test cannot keep the JVM alive
            writer.start();
            CRC32C crc = new CRC32C();
            long[] next = {0};
            while (next[0] < count) {
                assertTrue(in.awaitMessage(30, TimeUnit.SECONDS), "no message for 30 s at " + next[0]);
                in.readBatch((b, off, len) -> {
                    long seq = SharedMessages.check(b, off, len, crc);
                    assertEquals(next[0]++, seq, "out of order");
                });
            }
            writer.join(30_000);
            assertFalse(writer.isAlive());
            assertEquals(null, failure.get());
        }
    }

    @Test
    void aCleanCloseEndsTheStreamAfterEveryMessage() throws Exception {
        SharedPipeWriter out = SharedYPipe.createWriter(file, 4096);
        try (SharedPipeReader in = SharedYPipe.openReader(file)) {
            for (int i = 0; i < 3; i++) {
                assertTrue(out.write(new byte[] {(byte) i}));
            }
            assertTrue(out.write(new byte[] {9}, 0, 1, true)); // incomplete: dropped by close
            out.close();
            assertTrue(out.isClosed());
            byte[] dst = new byte[4];
            for (int i = 0; i < 3; i++) {
                assertTrue(in.awaitMessage());
                assertEquals(1, in.read(dst));
                assertEquals(i, dst[0]);
            }
            assertFalse(in.awaitMessage(), "the writer closed and everything was read");
            assertTrue(in.isEndOfStream());
            assertFalse(in.awaitMessage(1, TimeUnit.SECONDS));
        }
    }

    @Test
    void aRestartedWriterContinuesWhereTheLastFlushEnded() throws Exception {
        SharedPipeWriter first = SharedYPipe.createWriter(file, 1024);
        try (SharedPipeReader in = SharedYPipe.openReader(file)) {
            first.write(new byte[] {1});
            first.write(new byte[] {2});
            first.flush();
            first.write(new byte[] {3}, 0, 1, true); // an incomplete part: never flushed
            first.close();
            byte[] dst = new byte[8];
            assertTrue(in.awaitMessage());
            assertEquals(1, in.read(dst));
            assertEquals(1, dst[0]);
            try (SharedPipeWriter again = SharedYPipe.builder(file).openWriter()) {
                assertTrue(again.write(new byte[] {4}));
                again.flush();
                assertTrue(in.awaitMessage());
                assertEquals(1, in.read(dst));
                assertEquals(2, dst[0]);
                assertTrue(in.awaitMessage());
                assertEquals(1, in.read(dst));
                assertEquals(4, dst[0], "the restarted writer's message follows the last flushed one");
            }
        }
    }

    @Test
    void aTakenSideIsRefusedWithTheHoldersPid() throws Exception {
        try (SharedPipeWriter out = SharedYPipe.createWriter(file, 4096);
                SharedPipeReader in = SharedYPipe.openReader(file)) {
            String pid = String.valueOf(ProcessHandle.current().pid());
            PipeSideTakenException w = assertThrows(PipeSideTakenException.class,
                    () -> SharedYPipe.builder(file).openWriter());
            assertTrue(w.getMessage().contains("writer side") && w.getMessage().contains(pid), w.getMessage());
            PipeSideTakenException r = assertThrows(PipeSideTakenException.class,
                    () -> SharedYPipe.openReader(file));
            assertTrue(r.getMessage().contains("reader side") && r.getMessage().contains(pid), r.getMessage());
            assertFalse(in.isClosed() || out.isClosed());
        }
        SharedYPipe.openReader(file).close(); // free again once closed
    }

    private String openFails(String expected) {
        IOException e = assertThrows(IOException.class, () -> SharedYPipe.openReader(file));
        assertTrue(e.getMessage().contains(expected), "'" + e.getMessage() + "' should say " + expected);
        return e.getMessage();
    }

    /** A fresh closed pipe file with {@code bytes} written at {@code offset}: opening it must fail. */
    private void badFile(int offset, byte[] bytes, String expected) throws IOException {
        Files.deleteIfExists(file);
        SharedYPipe.createWriter(file, 4096).close();
        patch(offset, bytes);
        openFails(expected);
    }

    @Test
    void aBadFileIsAClearException() throws Exception {
        badFile(0, "NOTAPIPE".getBytes(java.nio.charset.StandardCharsets.US_ASCII), "wrong magic");
        badFile(8, intBytes(5), "version 5 (this ysuite reads version 4)");
        badFile(8, intBytes(3), "version 3 (this ysuite reads version 4)"); // counts stored per flush and read
        badFile(8, intBytes(2), "version 2 (this ysuite reads version 4)"); // the layout without counters
        badFile(8, intBytes(1), "version 1"); // the layout with flag bits in c and head
        badFile(SharedPipeDescriptor.WRITER_AT, intBytes(3), "writer side state 3");
        badFile(SharedPipeDescriptor.READER_AT, intBytes(-1), "reader side state -1");
        badFile(SharedPipeDescriptor.READER_AT, intBytes(Integer.MAX_VALUE), "reader side state " + Integer.MAX_VALUE);
        badFile(12, intBytes(1234), "header size 1234");
        badFile(16, intBytes(3000), "capacity 3000");
        badFile(16, intBytes(2048), "file size 8192"); // a valid capacity that does not match the size
        badFile(SharedPipeDescriptor.HEAD_AT, ByteBuffer.allocate(8).order(ByteOrder.nativeOrder()).putLong(0, 64).array(),
                "corrupt positions");

        Files.delete(file);
        SharedYPipe.createWriter(file, 4096).close();
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.truncate(6000);
        }
        openFails("file size 6000");
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.truncate(100);
        }
        openFails("shorter than the 4096-byte header");

        Files.delete(file);
        Files.createDirectory(file);
        openFails("not a regular file");
        Files.delete(file);
        openFails("no pipe file");
    }

    /** The descriptors of this process that point at the pipe file, and its mappings of it. */
    private long handlesOnFile() throws IOException {
        String name = file.toAbsolutePath().toString();
        long fds = 0;
        try (Stream<Path> links = Files.list(Path.of("/proc/self/fd"))) {
            for (Path link : links.collect(Collectors.toList())) {
                try {
                    if (Files.readSymbolicLink(link).toString().startsWith(name)) {
                        fds++;
                    }
                } catch (IOException gone) {
                    // the listing's own descriptor, closed meanwhile
                }
            }
        }
        long maps = Files.readAllLines(Path.of("/proc/self/maps")).stream().filter(l -> l.contains(name)).count();
        return fds * 1_000_000 + maps;
    }

    @Test
    void aThousandOpensAndClosesLeaveNoDescriptorAndNoMapping() throws Exception {
        SharedYPipe.createWriter(file, 4096).close();
        assertEquals(0, handlesOnFile());
        for (int i = 0; i < 1000; i++) {
            SharedPipeWriter out = SharedYPipe.builder(file).openWriter();
            SharedPipeReader in = SharedYPipe.openReader(file);
            if (i == 0) {
                assertEquals(2_000_002, handlesOnFile(), "two lock descriptors, two mappings while open");
            }
            assertTrue(out.write(new byte[i % 100]));
            out.flush();
            assertTrue(in.awaitMessage());
            assertEquals(i % 100, in.read(new byte[100]));
            in.close();
            out.close();
        }
        assertEquals(0, handlesOnFile(), "(descriptors x 10^6 + mappings) left after 1000 opens and closes");
    }

    @Test
    void aForgottenPipeGivesItsSideBackOnceCollected() throws Exception {
        SharedYPipe.createWriter(file, 4096).close();
        assertNotNull(SharedYPipe.openReader(file)); // never closed, unreachable at once
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        for (;;) {
            try {
                SharedYPipe.openReader(file).close();
                break;
            } catch (PipeSideTakenException taken) {
                assertTrue(System.nanoTime() < deadline, "the forgotten reader still holds its side after 20 s of GCs");
                System.gc(); // the Cleaner closes its lock's descriptor once the collector found it
                Thread.yield();
            }
        }
    }

    @Test
    void badArgumentsNameTheArgumentAndTheLimit() throws Exception {
        IllegalArgumentException cap = assertThrows(IllegalArgumentException.class,
                () -> SharedYPipe.createWriter(file, 1000));
        assertTrue(cap.getMessage().contains("capacityBytes") && cap.getMessage().contains("256")
                && cap.getMessage().contains(String.valueOf(1 << 30)), cap.getMessage());
        assertThrows(IllegalArgumentException.class, () -> SharedYPipe.builder(file).capacity(128));
        IllegalArgumentException peer = assertThrows(IllegalArgumentException.class,
                () -> SharedYPipe.builder(file).peerCheck(0, TimeUnit.SECONDS));
        assertTrue(peer.getMessage().contains("peerCheck") && peer.getMessage().contains("1 ms"), peer.getMessage());
        assertThrows(NullPointerException.class, () -> SharedYPipe.builder(null));
        assertThrows(NullPointerException.class, () -> SharedYPipe.builder(file).readerPolicy(null));
        assertThrows(NullPointerException.class, () -> SharedYPipe.builder(file).peerCheck(1, null));
        try (SharedPipeWriter out = SharedYPipe.createWriter(file, 256);
                SharedPipeReader in = SharedYPipe.openReader(file)) {
            IllegalArgumentException len = assertThrows(IllegalArgumentException.class,
                    () -> out.write(new byte[125]));
            assertTrue(len.getMessage().contains("length") && len.getMessage().contains("124"), len.getMessage());
            assertThrows(IllegalArgumentException.class, () -> out.claim(-1));
            assertThrows(IllegalArgumentException.class, () -> out.awaitSpace(10, -1, TimeUnit.SECONDS));
            assertThrows(IndexOutOfBoundsException.class, () -> out.write(new byte[4], 2, 3, false));
            assertThrows(NullPointerException.class, () -> out.write((byte[]) null));
            assertThrows(NullPointerException.class, () -> in.read(null));
            assertThrows(IllegalArgumentException.class, () -> in.awaitMessage(-1, TimeUnit.SECONDS));
            out.write(new byte[20]);
            out.flush();
            IllegalArgumentException dst = assertThrows(IllegalArgumentException.class, () -> in.read(new byte[10]));
            assertTrue(dst.getMessage().contains("dst.length 10"), dst.getMessage());
            assertEquals(20, in.read(new byte[20]), "the message stayed");
        }
    }

    /** Each side's type has its side's operations only: a reader's write does not compile. */
    @Test
    void eachSideHasOnlyItsOwnOperations() {
        java.util.Set<String> writerOnly = java.util.Set.of("write", "claim", "claimBuffer", "commit", "unwrite",
                "flush", "awaitSpace");
        java.util.Set<String> readerOnly = java.util.Set.of("read", "readBatch", "checkRead", "awaitMessage",
                "isEndOfStream");
        for (java.lang.reflect.Method m : SharedPipeReader.class.getMethods()) {
            assertFalse(writerOnly.contains(m.getName()), "the reader has " + m);
        }
        for (java.lang.reflect.Method m : SharedPipeWriter.class.getMethods()) {
            assertFalse(readerOnly.contains(m.getName()), "the writer has " + m);
        }
    }

    @Test
    void operationsAfterCloseThrowIllegalState() throws Exception {
        SharedPipeWriter out = SharedYPipe.createWriter(file, 4096);
        SharedPipeReader in = SharedYPipe.openReader(file);
        out.close();
        in.close();
        out.close(); // idempotent
        for (Runnable op : List.<Runnable>of(() -> out.write(new byte[1]), out::flush, () -> out.claim(1),
                out::claimBuffer, () -> out.commit(false), out::unwrite, () -> in.read(new byte[1]),
                in::checkRead, () -> in.readBatch((b, o, l) -> { }), in::isEndOfStream)) {
            IllegalStateException e = assertThrows(IllegalStateException.class, op::run);
            assertTrue(e.getMessage().contains("closed"), e.getMessage());
        }
        assertThrows(IllegalStateException.class, () -> out.awaitSpace(1));
        assertThrows(IllegalStateException.class, () -> in.awaitMessage());
        assertTrue(out.isClosed() && in.isClosed());
        assertNotNull(out.toString());
    }
}
