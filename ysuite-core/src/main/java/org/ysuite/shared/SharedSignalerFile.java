package org.ysuite.shared;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;
import jnr.ffi.Pointer;
import org.ysuite.internal.DirectMemory;
import org.ysuite.internal.Futex;
import org.ysuite.internal.Membarrier;
import org.ysuite.internal.Memfd;
import org.ysuite.internal.OfdLock;
import org.ysuite.internal.Posix;

/**
 * {@link SharedSignaler}'s two files: the small <em>reference file</em> at the path the processes
 * agree on, and the sealed memfd it names, which holds the shared word. The layouts (native byte
 * order) are drawn in {@link SharedSignaler}; every value read from either file is read once,
 * checked, and never trusted beyond that.
 */
final class SharedSignalerFile {

    /** "YSSIGREF": the reference file's magic. */
    static final long REF_MAGIC = magic("YSSIGREF");
    /** "YSSIGNL1": the memfd's magic. */
    static final long MAGIC = magic("YSSIGNL1");
    static final int VERSION = 1;
    static final int REF_SIZE = 32;
    static final int MAX_SENDERS = 4096;

    static final int MAGIC_AT = 0;
    static final int VERSION_AT = 8;
    static final int SLOTS_AT = 12;
    /** The owner's record: state (int), pid (int), start time in epoch ms (long, -1 unknown). */
    static final int OWNER_AT = 16;
    /** The owner's count of futex sleeps (long, opaque stores, read by anyone, never trusted). */
    static final int SLEEPS_AT = 32;
    /**
     * 1 if the owner runs a {@link Membarrier} after each arm, so that senders registered for it
     * may ring without a fence; 0 if not (int, written once before the magic).
     */
    static final int FENCES_SENDERS_AT = 40;
    /** The shared word (int): {@link SharedSignalerWords}; its own cache line. */
    static final int WORD_AT = 64;
    /** Sender slot k's record (state, pid, start time, as the owner's) at SLOTS_BASE + 16 k. */
    static final int SLOTS_BASE = 128;
    static final int SLOT_SIZE = 16;

    static final int FREE = 0;
    static final int OPEN = 1;
    static final int CLOSED = 2;

    /** The locked bytes of the memfd (past its end): the owner's, and slot k's at +1+k. */
    private static final long LOCK_BASE = 1L << 40;

    static final VarHandle INT = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.nativeOrder());
    static final VarHandle LONG = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());

    final Path path;
    final int slots;
    /** The slot this side holds, {@code -1} for the owner. */
    final int slot;
    final ByteBuffer shared;
    final long wordAddress;
    private final DirectMemory memory;
    private final int fd;
    private final Pointer flock = OfdLock.newFlock();
    private final AtomicBoolean fdClosed = new AtomicBoolean();

    private SharedSignalerFile(Path path, int slots, int slot, DirectMemory memory, int fd) {
        this.path = path;
        this.slots = slots;
        this.slot = slot;
        this.memory = memory;
        this.shared = memory.buffer();
        this.wordAddress = Futex.address(shared) + WORD_AT;
        this.fd = fd;
    }

    private static long magic(String text) {
        return ByteBuffer.wrap(text.getBytes(StandardCharsets.US_ASCII)).order(ByteOrder.nativeOrder()).getLong();
    }

    static long size(int slots) {
        return Math.max(4096, SLOTS_BASE + (long) SLOT_SIZE * slots);
    }

    /** Creates the memfd (sealed), takes the owner's lock, then links the reference file to {@code path}. */
    static SharedSignalerFile create(Path path, int senders, boolean fenceSenders) throws IOException {
        if (senders < 1 || senders > MAX_SENDERS) {
            throw new IllegalArgumentException("senders must be in [1, " + MAX_SENDERS + "]: " + senders);
        }
        Path target = path.toAbsolutePath();
        SharedPipeFileSystem.directory(target);
        replaceStale(target);
        long size = size(senders);
        int fd = Memfd.createFixed("ysuite-signaler", size);
        SharedSignalerFile file = null;
        try {
            if (!OfdLock.tryLock(fd, LOCK_BASE, OfdLock.newFlock())) {
                throw new IOException("cannot lock the new memfd of " + target);
            }
            try (FileChannel ch = SharedPipeFileSystem.channel(fd)) {
                file = new SharedSignalerFile(target, senders, -1, DirectMemory.map(ch, size), fd);
            }
            ByteBuffer b = file.shared;
            b.putInt(VERSION_AT, VERSION).putInt(SLOTS_AT, senders).putInt(FENCES_SENDERS_AT, fenceSenders ? 1 : 0);
            LONG.setRelease(b, MAGIC_AT, MAGIC);
            file.markOpen(OWNER_AT);
            writeReference(target, senders, fd);
            return file;
        } catch (IOException | RuntimeException | Error e) {
            if (file != null) {
                file.closeFd();
                file.memory.free();
            } else {
                Posix.closeQuietly(fd);
            }
            throw e;
        }
    }

    /** A reference file left at {@code target} by an owner that is gone is removed; a live one is refused. */
    private static void replaceStale(Path target) throws IOException {
        if (!Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        ByteBuffer ref;
        try {
            ref = readReference(target);
            open(target, ref, -1).release();
        } catch (PeerGoneException | NoSuchFileException stale) {
            Files.deleteIfExists(target);
            return;
        } catch (IOException e) {
            throw new FileAlreadyExistsException(target.toString(), null, "not a stale signaler file: " + e.getMessage());
        }
        throw new FileAlreadyExistsException(target.toString(), null, "a live signaler owner (process "
                + ref.getInt(16) + ") holds it");
    }

    /** Writes the reference under a temporary name (0600) and links it to {@code target} (fails if it exists). */
    private static void writeReference(Path target, int senders, int memfd) throws IOException {
        SharedPipeFileSystem.Temp tmp = SharedPipeFileSystem.createTemp(target);
        try (FileChannel ch = SharedPipeFileSystem.channel(tmp.fd)) {
            ByteBuffer ref = ByteBuffer.allocate(REF_SIZE).order(ByteOrder.nativeOrder());
            ref.putLong(REF_MAGIC).putInt(VERSION).putInt(senders)
                    .putInt((int) ProcessHandle.current().pid()).putInt(memfd).putLong(startMillis()).flip();
            while (ref.hasRemaining()) {
                ch.write(ref, ref.position());
            }
            Files.createLink(target, tmp.path);
        } finally {
            Posix.closeQuietly(tmp.fd);
            Files.deleteIfExists(tmp.path);
        }
    }

    /** Reads the reference file once, through one descriptor that followed no link, and checks it. */
    static ByteBuffer readReference(Path target) throws IOException {
        int fd;
        try {
            fd = SharedPipeFileSystem.openExisting(target, false);
        } catch (NoSuchFileException e) {
            throw new NoSuchFileException(target.toString(), null, "no signaler file");
        }
        ByteBuffer ref = ByteBuffer.allocate(REF_SIZE).order(ByteOrder.nativeOrder());
        try (FileChannel ch = SharedPipeFileSystem.channel(fd)) {
            while (ref.hasRemaining() && ch.read(ref, ref.position()) > 0) {
                // read what is there
            }
        } finally {
            Posix.closeQuietly(fd);
        }
        if (ref.position() < REF_SIZE || ref.getLong(0) != REF_MAGIC) {
            throw new IOException(target + " is not a signaler file: " + ref.position() + " bytes"
                    + (ref.position() < REF_SIZE ? " (a reference file has " + REF_SIZE + "; truncated?)"
                    : ", wrong magic number (expected \"YSSIGREF\")"));
        }
        int version = ref.getInt(8);
        if (version != VERSION) {
            throw new IOException(target + ": unsupported signaler file version " + version
                    + " (this ysuite reads version " + VERSION + ")");
        }
        int slots = ref.getInt(12);
        if (slots < 1 || slots > MAX_SENDERS || ref.getInt(16) <= 0 || ref.getInt(20) < 0) {
            throw new IOException(target + ": corrupt reference: senders " + slots + " (expected [1, "
                    + MAX_SENDERS + "]), process " + ref.getInt(16) + ", descriptor " + ref.getInt(20));
        }
        return ref;
    }

    /** Opens a sender side: reads the reference, opens and checks the owner's memfd, takes a free slot. */
    static SharedSignalerFile openSender(Path path) throws IOException {
        Path target = path.toAbsolutePath();
        SharedSignalerFile file = open(target, readReference(target), 0);
        try {
            int taken = file.takeSlot();
            if (taken < 0) {
                throw new PipeSideTakenException("all " + file.slots + " sender slots of " + target
                        + " are in use by live processes");
            }
            SharedSignalerFile sender = new SharedSignalerFile(target, file.slots, taken, file.memory, file.fd);
            sender.markOpen(SLOTS_BASE + SLOT_SIZE * taken);
            return sender;
        } catch (IOException | RuntimeException | Error e) {
            file.release();
            throw e;
        }
    }

    /** Opens the memfd that {@code ref} names (slot {@code -1}: only to look at it). */
    private static SharedSignalerFile open(Path target, ByteBuffer ref, int slot) throws IOException {
        int slots = ref.getInt(12);
        int pid = ref.getInt(16);
        String memfdPath = "/proc/" + pid + "/fd/" + ref.getInt(20);
        int fd = Posix.libc().open(memfdPath, Posix.O_RDWR | Posix.O_CLOEXEC, 0);
        if (fd < 0) {
            throw new PeerGoneException("the owner of " + target + " (process " + pid + startedAt(ref.getLong(24))
                    + ") is gone: " + Posix.failure("open(" + memfdPath + ")", Posix.errno()));
        }
        SharedSignalerFile file = null;
        try {
            int seals = Memfd.seals(fd);
            if (seals < 0 || (seals & Memfd.FIXED_SIZE) != Memfd.FIXED_SIZE) {
                throw new IOException(target + ": " + memfdPath + " is not a sealed memfd (seals " + seals
                        + "): refused (its size could change under the mapping)");
            }
            long size = size(slots);
            try (FileChannel ch = SharedPipeFileSystem.channel(fd)) {
                if (ch.size() != size) {
                    throw new IOException(target + ": memfd size " + ch.size() + " is not " + size
                            + " for " + slots + " senders");
                }
                file = new SharedSignalerFile(target, slots, slot, DirectMemory.map(ch, size), fd);
            }
            file.checkHeader(pid);
            return file;
        } catch (IOException | RuntimeException | Error e) {
            if (file != null) {
                file.release();
            } else {
                Posix.closeQuietly(fd);
            }
            throw e;
        }
    }

    private void checkHeader(int pid) throws IOException {
        ByteBuffer b = shared;
        if ((long) LONG.getAcquire(b, MAGIC_AT) != MAGIC || b.getInt(VERSION_AT) != VERSION
                || b.getInt(SLOTS_AT) != slots) {
            throw new IOException(path + ": the memfd of process " + pid + " is not a signaler of version "
                    + VERSION + " with " + slots + " senders (magic, version or size differ)");
        }
        if (!ownerAlive()) {
            throw new PeerGoneException("the owner of " + path + " (process " + pid + ") died or closed");
        }
    }

    /** Tells whether the owner fences the senders after each arm ({@link #FENCES_SENDERS_AT}). */
    boolean ownerFencesSenders() {
        return shared.getInt(FENCES_SENDERS_AT) == 1;
    }

    /** Takes the first free slot's lock; returns the slot, or -1 if all are held. */
    private int takeSlot() throws IOException {
        for (int k = 0; k < slots; k++) {
            if (OfdLock.tryLock(fd, LOCK_BASE + 1 + k, flock)) {
                return k;
            }
        }
        return -1;
    }

    private void markOpen(int at) {
        shared.putInt(at + 4, (int) ProcessHandle.current().pid());
        shared.putLong(at + 8, startMillis());
        INT.setRelease(shared, at, OPEN);
    }

    void markClosed() {
        INT.setRelease(shared, slot < 0 ? OWNER_AT : SLOTS_BASE + SLOT_SIZE * slot, CLOSED);
    }

    /** The owner's state is OPEN and its lock is held (a dead owner's lock is dropped by the kernel). */
    boolean ownerAlive() throws IOException {
        return (int) INT.getAcquire(shared, OWNER_AT) == OPEN && OfdLock.isLocked(fd, LOCK_BASE, flock);
    }

    /** Counts the sender slots whose lock a live process holds. */
    int liveSenders() throws IOException {
        int live = 0;
        for (int k = 0; k < slots; k++) {
            if (OfdLock.isLocked(fd, LOCK_BASE + 1 + k, flock)) {
                live++;
            }
        }
        return live;
    }

    /** Deletes the reference file if it is still this owner's (same process and descriptor). */
    void deleteReference() {
        try {
            ByteBuffer ref = readReference(path);
            if (ref.getInt(16) == (int) ProcessHandle.current().pid() && ref.getInt(20) == fd) {
                Files.deleteIfExists(path);
            }
        } catch (IOException e) {
            // gone or replaced: not ours to delete
        }
    }

    /** Closes the descriptor (dropping this side's lock). Once. */
    void closeFd() {
        if (fdClosed.compareAndSet(false, true)) {
            Posix.closeQuietly(fd);
        }
    }

    /** Closes the descriptor now and frees the mapping once {@code holder} is unreachable. */
    void releaseWhenUnreachable(Object holder) {
        closeFd();
        memory.freeWhenUnreachable(holder);
    }

    /** Closes the descriptor and unmaps now (no thread may touch the memory any more). */
    void release() {
        try {
            memory.free();
        } finally {
            closeFd();
        }
    }

    private static long startMillis() {
        return ProcessHandle.current().info().startInstant().map(Instant::toEpochMilli).orElse(-1L);
    }

    private static String startedAt(long epochMillis) {
        return epochMillis < 0 ? "" : ", started " + Instant.ofEpochMilli(epochMillis);
    }
}
