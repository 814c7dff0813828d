package org.ysuite.moduletest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.lang.module.ModuleDescriptor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs {@link Consumer} in a fresh {@code java --module-path ... -m} with the JDK that runs the
 * build (17 and 25 in CI), so the module graph is the one a modular application gets: ysuite's
 * jar, jnr-ffi's automatic modules and ASM's explicit ones, nothing on the class path.
 */
class ModulePathTest {

    /** The flag docs/using.md tells a module-path consumer to pass on JDK 24+ (accepted from JDK 17). */
    static final String NATIVE_ACCESS = "--enable-native-access=org.jnrproject.jffi";

    /** This module's classes and its runtime dependencies (written by maven-dependency-plugin). */
    private static String modulePath() throws IOException {
        return Paths.get("target", "classes").toAbsolutePath() + File.pathSeparator + ConsumerModule.deps();
    }

    /** The consumer Maven compiled (src/main/java into target/classes). */
    static final ConsumerModule CONSUMER = new ConsumerModule(Paths.get("src", "main", "java"),
            Paths.get("target", "classes").toAbsolutePath(), "org.ysuite.moduletest/org.ysuite.moduletest.Consumer");

    /** Runs the consumer with the given JVM flags; returns exit status, stdout and stderr. */
    private static String[] run(String... jvmFlags) throws Exception {
        return CONSUMER.run(jvmFlags);
    }

    @Test
    void consumerRunsOnTheModulePathWithOnlyTheDocumentedFlag() throws Exception {
        String[] r = run(NATIVE_ACCESS);
        String report = "stdout:\n" + r[1] + "\nstderr:\n" + r[2];
        assertEquals("0", r[0], report);
        assertTrue(r[1].contains("module: org.ysuite.moduletest reads org.ysuite"), report);
        assertTrue(r[1].contains("YPipe+YSemaphore: " + Consumer.MESSAGES), report);
        assertTrue(r[1].contains("YPipe+YPollset: " + Consumer.MESSAGES), report);
        for (String kind : new String[] {"SOCKETPAIR", "EVENTFD"}) {
            assertTrue(r[1].contains("YPipe+YSocketPair(" + kind + "): " + Consumer.MESSAGES), report);
        }
        assertTrue(r[1].contains("OffHeapYPipe: " + Consumer.MESSAGES), report);
        assertTrue(r[1].contains("SharedYPipe: " + Consumer.MESSAGES), report);
        assertTrue(r[1].contains("internal hidden: org.ysuite.internal not exported"), report);
        assertTrue(r[1].endsWith("consumer: ok\n"), report);
        // no warning of any kind: the flag names the right module and nothing else is missing
        assertEquals("", r[2], report);
    }

    @Test
    void withoutTheFlagJdk24AndLaterNameJffiAsTheModuleToEnable() throws Exception {
        assumeTrue(Runtime.version().feature() >= 24,
                "JDK " + Runtime.version().feature() + " does not warn about restricted native access");
        String[] r = run();
        String report = "stdout:\n" + r[1] + "\nstderr:\n" + r[2];
        assertEquals("0", r[0], report);
        assertTrue(r[2].contains(NATIVE_ACCESS), "the JDK should ask for exactly " + NATIVE_ACCESS + "\n" + report);
    }

    @Test
    void aConsumerCannotCompileAgainstTheInternals(@TempDir Path dir) throws Exception {
        Path src = dir.resolve("src");
        Files.createDirectories(src.resolve("peek"));
        Files.writeString(src.resolve("module-info.java"), "module peek { requires org.ysuite; }\n");
        Files.writeString(src.resolve("peek").resolve("Peek.java"),
                "package peek; public class Peek { Object o = org.ysuite.internal.Posix.class; }\n");
        List<String> cmd = List.of(Paths.get(System.getProperty("java.home"), "bin", "javac").toString(),
                "--module-path", modulePath(), "-d", dir.resolve("out").toString(),
                src.resolve("module-info.java").toString(), src.resolve("peek").resolve("Peek.java").toString());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "javac did not finish");
        assertEquals(1, p.exitValue(), out);
        assertTrue(out.contains("package org.ysuite.internal is not visible"), out);
    }

    @Test
    void theJarExportsTheInProcessAndTheCrossProcessPackagesOnly() throws Exception {
        ModuleDescriptor d = ConsumerModule.descriptorOf("ysuite-core");
        assertEquals("org.ysuite", d.name());
        assertFalse(d.isAutomatic(), "org.ysuite must be an explicit module: " + d);
        assertFalse(d.isOpen(), "org.ysuite must not be open: " + d);
        Set<String> exported = d.exports().stream().map(ModuleDescriptor.Exports::source).collect(Collectors.toSet());
        assertEquals(Set.of("org.ysuite", "org.ysuite.shared"), exported);
        // opened (run-time only) for the class jnr-ffi generates to implement the C binding
        Set<String> opened = d.opens().stream().map(ModuleDescriptor.Opens::source).collect(Collectors.toSet());
        assertEquals(Set.of("org.ysuite.internal"), opened);
        assertTrue(d.packages().contains("org.ysuite.internal"), "internal package present but hidden: " + d.packages());
    }
}
