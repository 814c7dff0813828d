package org.ysuite.moduletest;

import static java.lang.module.ModuleDescriptor.Requires.Modifier.STATIC;
import static java.lang.module.ModuleDescriptor.Requires.Modifier.TRANSITIVE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Compiles the consumer module in {@code src/test/netty-consumer} ({@code requires org.ysuite.netty;}
 * and Netty's epoll transport) against ysuite-netty's jar with the JDK that runs the build, and runs
 * it in a fresh {@code java --module-path ... -m} (17 and 25 in CI): a {@code LoopMailbox} hand-off
 * on a real NIO event loop and on a real epoll event loop, nothing on the class path.
 */
class NettyModulePathTest {

    /** The flag docs/netty.md tells a module-path application to pass on JDK 24+ (accepted from 17). */
    static final String NATIVE_ACCESS = "--enable-native-access=io.netty.common,org.jnrproject.jffi";

    /** Netty's epoll native library: a module no other module requires, so the application adds it. */
    static final String EPOLL_NATIVE = "io.netty.transport.epoll.linux.x86_64";

    static final String MAIN = "org.ysuite.moduletest.netty/org.ysuite.moduletest.netty.NettyConsumer";

    /** Messages per loop, as in NettyConsumer.MESSAGES (not on this test's class path). */
    static final int MESSAGES = 100_000;

    static final ConsumerModule CONSUMER = new ConsumerModule("netty-consumer", MAIN);

    @BeforeAll
    static void compileTheConsumer() throws IOException {
        CONSUMER.compile();
    }

    /** Runs the consumer with the given JVM flags; returns exit status, stdout and stderr. */
    private static String[] run(String... jvmFlags) throws Exception {
        return CONSUMER.run(jvmFlags);
    }

    @Test
    void consumerRunsOnTheModulePathWithOnlyTheDocumentedFlags() throws Exception {
        String[] r = run(NATIVE_ACCESS, "--add-modules", EPOLL_NATIVE);
        String report = "stdout:\n" + r[1] + "\nstderr:\n" + r[2];
        assertEquals("0", r[0], report);
        assertTrue(r[1].contains("module: org.ysuite.moduletest.netty reads org.ysuite.netty (explicit)"), report);
        assertTrue(r[1].contains("exports: [org.ysuite.netty]"), report);
        // LoopMailbox's toString: its name (by default LoopMailbox-N), transport, state, counts
        assertTrue(r[1].matches("(?s).*LoopMailbox\\(nio\\): " + MESSAGES + " on LoopMailbox\\[LoopMailbox-\\d+, nio, closed.*"),
                report);
        assertTrue(r[1].matches("(?s).*LoopMailbox\\(epoll\\): " + MESSAGES
                + " on LoopMailbox\\[LoopMailbox-\\d+, epoll/eventfd, closed.*"), report);
        assertTrue(r[1].endsWith("netty consumer: ok\n"), report);
        // no warning of any kind: the flag names the right modules and nothing else is missing
        assertEquals("", r[2], report);
    }

    @Test
    void withoutTheFlagJdk24AndLaterNameNettyAndJffiAsTheModulesToEnable() throws Exception {
        assumeTrue(Runtime.version().feature() >= 24,
                "JDK " + Runtime.version().feature() + " does not warn about restricted native access");
        String[] r = run("--add-modules", EPOLL_NATIVE);
        String report = "stdout:\n" + r[1] + "\nstderr:\n" + r[2];
        assertEquals("0", r[0], report);
        assertTrue(r[2].contains("java.lang.System::loadLibrary has been called by "
                + "io.netty.util.internal.NativeLibraryUtil in module io.netty.common"), report);
        assertTrue(r[2].contains("--enable-native-access=io.netty.common "), report);
        assertTrue(r[2].contains("--enable-native-access=org.jnrproject.jffi "), report);
    }

    @Test
    void epollNeedsItsNativeModuleAdded() throws Exception {
        String[] r = run(NATIVE_ACCESS);
        String report = "stdout:\n" + r[1] + "\nstderr:\n" + r[2];
        assertNotEquals("0", r[0], report);
        assertTrue(r[1].contains("LoopMailbox(nio): " + MESSAGES), report);
        assertTrue(r[2].contains("could not load a native library: netty_transport_native_epoll"), report);
    }

    @Test
    void theJarIsAnExplicitModuleThatExportsOnlyOrgYsuiteNetty() throws Exception {
        ConsumerModule.assertExplicitModule("ysuite-netty", "org.ysuite.netty", Map.of(
                "org.ysuite", Set.of(TRANSITIVE),
                "io.netty.transport", Set.of(TRANSITIVE),
                "io.netty.buffer", Set.of(),
                "io.netty.common", Set.of(),
                "io.netty.transport.classes.epoll", Set.of(STATIC),
                "io.netty.transport.unix.common", Set.of(STATIC),
                "io.netty.handler", Set.of(STATIC))); // TLS only (MessageStreamBuilder.tls)
    }
}
