package org.ysuite.zmq.internal;

import java.nio.ByteBuffer;
import jnr.ffi.LibraryLoader;
import jnr.ffi.annotations.In;
import jnr.ffi.annotations.Out;
import jnr.ffi.types.size_t;
import jnr.ffi.types.u_int64_t;

/**
 * The few libsodium functions CURVE needs (ZeroMQ RFC 26 CurveZMQ: Curve25519, XSalsa20 and Poly1305 as
 * NaCl's {@code crypto_box} and {@code crypto_secretbox}), bound through jnr-ffi to Debian's libsodium23,
 * the library libzmq itself uses. Nothing here implements a primitive: every byte of cryptography is
 * libsodium's.
 *
 * <p>Why libsodium and not a Java library: {@code crypto_box} is X25519, then HSalsa20 over the shared
 * point, then XSalsa20-Poly1305; Bouncy Castle offers X25519, XSalsa20 and Poly1305 but not HSalsa20, so
 * the box would have to be assembled by hand, which is exactly the code one should not write oneself.
 *
 * <p>Arrays ({@code byte[]}) are copied to native memory for the call (keys, nonces, handshake boxes);
 * message boxes pass as {@link ByteBuffer}s: a direct one by its address (no copy), from its position.
 * The functions are thread-safe once {@link #lib()} has run {@code sodium_init}.
 */
public final class Sodium {

    /** {@code crypto_box_PUBLICKEYBYTES}, {@code _SECRETKEYBYTES}, {@code _BEFORENMBYTES}: 32. */
    public static final int KEY_BYTES = 32;
    /** {@code crypto_box_NONCEBYTES}, {@code crypto_secretbox_NONCEBYTES}: 24. */
    public static final int NONCE_BYTES = 24;
    /** {@code crypto_box_MACBYTES}, {@code crypto_secretbox_MACBYTES}: 16. */
    public static final int MAC_BYTES = 16;

    /** libsodium's functions, as jnr-ffi binds them (the C signatures are in each javadoc). */
    public interface Lib {
        /** {@code int sodium_init(void)}: 0 done, 1 already done, -1 failed. */
        int sodium_init();

        /** {@code void randombytes_buf(void *buf, size_t size)}. */
        void randombytes_buf(@Out byte[] buf, @size_t long size);

        /** {@code int crypto_box_keypair(unsigned char *pk, unsigned char *sk)}. */
        int crypto_box_keypair(@Out byte[] pk, @Out byte[] sk);

        /** {@code int crypto_scalarmult_base(unsigned char *q, const unsigned char *n)}: a public key from its secret key. */
        int crypto_scalarmult_base(@Out byte[] q, @In byte[] n);

        /** {@code int crypto_box_beforenm(unsigned char *k, const unsigned char *pk, const unsigned char *sk)}. */
        int crypto_box_beforenm(@Out byte[] k, @In byte[] pk, @In byte[] sk);

        /** {@code int crypto_box_easy(unsigned char *c, const unsigned char *m, unsigned long long mlen, const unsigned char *n, const unsigned char *pk, const unsigned char *sk)}. */
        int crypto_box_easy(@Out byte[] c, @In byte[] m, @u_int64_t long mlen, @In byte[] n, @In byte[] pk,
                            @In byte[] sk);

        /** {@code int crypto_box_open_easy(unsigned char *m, const unsigned char *c, unsigned long long clen, const unsigned char *n, const unsigned char *pk, const unsigned char *sk)}: 0, or -1 when the MAC does not verify. */
        int crypto_box_open_easy(@Out byte[] m, @In byte[] c, @u_int64_t long clen, @In byte[] n, @In byte[] pk,
                                 @In byte[] sk);

        /** {@code crypto_box_easy_afternm} on arrays (handshake boxes). */
        int crypto_box_easy_afternm(@Out byte[] c, @In byte[] m, @u_int64_t long mlen, @In byte[] n, @In byte[] k);

        /** {@code crypto_box_open_easy_afternm} on arrays (handshake boxes): 0, or -1 when the MAC does not verify. */
        int crypto_box_open_easy_afternm(@Out byte[] m, @In byte[] c, @u_int64_t long clen, @In byte[] n,
                                         @In byte[] k);

        /** {@code int crypto_secretbox_easy(unsigned char *c, const unsigned char *m, unsigned long long mlen, const unsigned char *n, const unsigned char *k)}. */
        int crypto_secretbox_easy(@Out byte[] c, @In byte[] m, @u_int64_t long mlen, @In byte[] n, @In byte[] k);

        /** {@code int crypto_secretbox_open_easy(...)}: 0, or -1 when the MAC does not verify. */
        int crypto_secretbox_open_easy(@Out byte[] m, @In byte[] c, @u_int64_t long clen, @In byte[] n,
                                       @In byte[] k);

        /** {@code int crypto_verify_32(const unsigned char *x, const unsigned char *y)}: 0 if equal, in constant time. */
        int crypto_verify_32(@In byte[] x, @In byte[] y);
    }

    /**
     * The message path's functions: the same C functions bound with {@link ByteBuffer}s (direct ones,
     * passed by address; in and out may overlap, which libsodium's {@code _easy} functions allow).
     */
    public interface Boxes {
        /** {@code crypto_box_easy_afternm(c, m, mlen, n, k)}. */
        int crypto_box_easy_afternm(ByteBuffer c, ByteBuffer m, @u_int64_t long mlen, @In byte[] n, @In byte[] k);

        /** {@code crypto_box_open_easy_afternm(m, c, clen, n, k)}: 0, or -1 when the MAC does not verify. */
        int crypto_box_open_easy_afternm(ByteBuffer m, ByteBuffer c, @u_int64_t long clen, @In byte[] n,
                                         @In byte[] k);
    }

    /**
     * The message path's functions with every pointer passed as its address in a Java {@code long}: an
     * all-primitive signature, which jnr-ffi calls through its fastest stub, with no marshalling and no
     * allocation. A pointer and a 64-bit integer travel in the same register on the 64-bit ABIs jnr-ffi
     * supports (x86-64 System V, AArch64). The caller keeps the memory alive and sized for the call.
     */
    public interface Raw {
        /** {@code crypto_box_easy_afternm(c, m, mlen, n, k)}, by address. */
        int crypto_box_easy_afternm(long c, long m, long mlen, long n, long k);

        /** {@code crypto_box_open_easy_afternm(m, c, clen, n, k)}, by address: 0, or -1 when the MAC does not verify. */
        int crypto_box_open_easy_afternm(long m, long c, long clen, long n, long k);
    }

    private static final class Holder {
        static final Lib LIB;
        static final Boxes BOXES;
        static final Raw RAW;
        static final Throwable FAILURE;

        static {
            Lib lib = null;
            Boxes boxes = null;
            Raw raw = null;
            Throwable failure = null;
            // "sodium" finds libsodium.so (the -dev symlink) or, through jnr-ffi's search, the versioned
            // library; the explicit soname covers a runtime-only install (Debian's libsodium23).
            for (String name : new String[] {"sodium", "libsodium.so.23"}) {
                try {
                    lib = LibraryLoader.create(Lib.class).failImmediately().load(name);
                    boxes = LibraryLoader.create(Boxes.class).failImmediately().load(name);
                    raw = jnr.ffi.Platform.getNativePlatform().addressSize() == 64
                            ? LibraryLoader.create(Raw.class).failImmediately().load(name) : null;
                    if (lib.sodium_init() < 0) {
                        throw new IllegalStateException("sodium_init() failed");
                    }
                    failure = null;
                    break;
                } catch (Throwable t) {
                    lib = null;
                    boxes = null;
                    raw = null;
                    if (failure == null) {
                        failure = t;
                    }
                }
            }
            LIB = lib;
            BOXES = boxes;
            RAW = raw;
            FAILURE = failure;
        }
    }

    private Sodium() {
    }

    /**
     * libsodium, initialised.
     *
     * @throws UnsupportedOperationException "CURVE needs libsodium (libsodium23): ..." when it cannot be loaded
     */
    public static Lib lib() {
        if (Holder.FAILURE != null) {
            throw unavailable();
        }
        return Holder.LIB;
    }

    /** The message path's functions; see {@link #lib()} for the failure. */
    public static Boxes boxes() {
        if (Holder.FAILURE != null) {
            throw unavailable();
        }
        return Holder.BOXES;
    }

    /** The message path by address; null where pointers are not 64-bit (then use {@link #boxes()}). */
    public static Raw raw() {
        if (Holder.FAILURE != null) {
            throw unavailable();
        }
        return Holder.RAW;
    }

    /** Whether libsodium could be loaded. */
    public static boolean available() {
        return Holder.FAILURE == null;
    }

    private static UnsupportedOperationException unavailable() {
        return new UnsupportedOperationException("CURVE needs libsodium (libsodium23): cannot load it through jnr-ffi: "
                + Holder.FAILURE, Holder.FAILURE);
    }

    /** {@code n} random bytes from libsodium's CSPRNG. */
    public static byte[] random(int n) {
        byte[] b = new byte[n];
        lib().randombytes_buf(b, n);
        return b;
    }

    /** Whether two 32-byte values are equal, compared in constant time ({@code crypto_verify_32}). */
    public static boolean equal32(byte[] x, byte[] y) {
        if (x.length != KEY_BYTES || y.length != KEY_BYTES) {
            throw new IllegalArgumentException("equal32: " + x.length + " and " + y.length + " bytes, 32 each");
        }
        return lib().crypto_verify_32(x, y) == 0;
    }
}
