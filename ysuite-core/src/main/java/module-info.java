/**
 * ysuite: y-suite for the JVM, a lock-free single-writer/single-reader pipe with passive
 * synchronisation, and the signalers that wake a sleeping reader.
 *
 * <p>Two packages are exported: {@code org.ysuite}, the in-process pipes, mailbox and signalers,
 * and {@code org.ysuite.shared}, their cross-process counterparts over a shared file (the shared
 * pipe and the shared signaler). {@code org.ysuite.internal} stays inside the module: the
 * machinery both use (the record ring, its descriptor, direct memory, the spin and park waits, the
 * shared pipe file's layout and counters) and the jnr-ffi binding to the C library.
 *
 * <p>On the module path the consumer needs nothing beyond {@code requires org.ysuite;} and, on
 * JDK 24 and later, {@code --enable-native-access=org.jnrproject.jffi} to silence the JDK's
 * restricted-method warning (jffi, an automatic module, is the one that calls
 * {@code System.load}). The directives below make the module graph resolve by itself:
 * <ul>
 *   <li>{@code org.jnrproject.ffi} is jnr-ffi, an automatic module; resolving it resolves every
 *       other automatic module on the module path too (jffi, its native-library jar, jnr-x86asm and
 *       jnr-a64asm).</li>
 *   <li>{@code org.objectweb.asm} is an explicit module that jnr-ffi's automatic module never
 *       names, so nothing would resolve it: without this directive the first binding of the C library
 *       fails with {@code NoClassDefFoundError: org/objectweb/asm/ClassVisitor}.</li>
 * </ul>
 */
@SuppressWarnings("requires-automatic")
module org.ysuite {
    requires org.jnrproject.ffi;
    requires org.objectweb.asm;
    requires jdk.jfr; // the Flight Recorder events (org.ysuite.internal.event), disabled by default

    exports org.ysuite;
    exports org.ysuite.shared;

    // Not exported: no consumer compiles against the internals. Opened, because jnr-ffi implements
    // the C binding (org.ysuite.internal.LibC) with a class it generates into a new class loader's
    // unnamed module, and that class must be able to implement LibC at run time; an unqualified
    // `opens` is the only directive that reaches an unnamed module (a qualified export or open can
    // only name a named module). Opening grants run-time access only, never compile-time access.
    opens org.ysuite.internal;
}
