package org.ysuite.moduletest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleDescriptor.Requires;
import java.lang.module.ModuleFinder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.spi.ToolProvider;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A consumer module kept under {@code src/test/<name>}: compiled by {@code javac --module-path}
 * against this module's runtime dependencies with the JDK that runs the build, and run in a fresh
 * {@code java --module-path ... -m}, nothing on the class path (NettyModulePathTest,
 * MicrometerModulePathTest; ModulePathTest runs the consumer Maven compiled, target/classes).
 */
final class ConsumerModule {

    private final Path sources;
    private final Path classes;
    private final String main;

    /**
     * @param name the folder under {@code src/test}; the classes go to {@code target/<name>-classes}
     * @param main the {@code module/class} that {@code java -m} runs
     */
    ConsumerModule(String name, String main) {
        this(Paths.get("src", "test", name), Paths.get("target", name + "-classes").toAbsolutePath(), main);
    }

    /**
     * @param sources the consumer's sources (for {@link #compile()})
     * @param classes where its classes are (or go)
     * @param main the {@code module/class} that {@code java -m} runs
     */
    ConsumerModule(Path sources, Path classes, String main) {
        this.sources = sources;
        this.classes = classes;
        this.main = main;
    }

    /** The runtime dependencies' jars (written by maven-dependency-plugin), a module path. */
    static String deps() throws IOException {
        return Files.readString(Paths.get("target", "module-path.txt"), StandardCharsets.UTF_8).trim();
    }

    /** The module descriptor of the jar on the module path whose file name starts with {@code artifact}. */
    static ModuleDescriptor descriptorOf(String artifact) throws IOException {
        for (String entry : deps().split(File.pathSeparator)) {
            Path jar = Paths.get(entry);
            if (jar.getFileName().toString().startsWith(artifact + "-")) {
                return ModuleFinder.of(jar).findAll().iterator().next().descriptor();
            }
        }
        throw new AssertionError(artifact + " not on the module path: " + deps());
    }

    /**
     * Asserts that the jar of {@code artifact} is the explicit, not open module {@code name},
     * that it exports only the package {@code name}, opens nothing, and requires exactly
     * {@code requires} (besides java.base), with those modifiers.
     */
    static void assertExplicitModule(String artifact, String name, Map<String, Set<Requires.Modifier>> requires)
            throws IOException {
        ModuleDescriptor d = descriptorOf(artifact);
        assertEquals(name, d.name());
        assertFalse(d.isAutomatic(), name + " must be an explicit module: " + d);
        assertFalse(d.isOpen(), name + " must not be open: " + d);
        assertEquals(Set.of(name), d.exports().stream().map(ModuleDescriptor.Exports::source).collect(Collectors.toSet()));
        assertEquals(Set.of(), d.opens());
        assertEquals(requires, d.requires().stream()
                .filter(q -> !q.name().equals("java.base"))
                .collect(Collectors.toMap(Requires::name, Requires::modifiers)), d.toString());
    }

    /** Compiles the consumer with every lint warning an error; fails the test with javac's output. */
    void compile() throws IOException {
        List<String> args = new ArrayList<>(List.of("-d", classes.toString(), "--module-path", deps(), "-Xlint:all",
                "-Werror"));
        try (Stream<Path> files = Files.walk(sources)) {
            files.filter(p -> p.toString().endsWith(".java")).forEach(p -> args.add(p.toString()));
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);
        int rc = ToolProvider.findFirst("javac").orElseThrow().run(print, print, args.toArray(new String[0]));
        assertEquals(0, rc, "javac " + args + "\n" + out.toString(StandardCharsets.UTF_8));
    }

    /** Runs the compiled consumer with the given JVM flags; returns exit status, stdout and stderr. */
    String[] run(String... jvmFlags) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(List.of(jvmFlags));
        cmd.add("--module-path");
        cmd.add(classes + File.pathSeparator + deps());
        cmd.add("-m");
        cmd.add(main);
        Path out = Files.createTempFile("consumer", ".out");
        Path err = Files.createTempFile("consumer", ".err");
        try {
            Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("consumer did not finish within 120 s: " + cmd
                        + "\nstdout:\n" + Files.readString(out) + "\nstderr:\n" + Files.readString(err));
            }
            return new String[] {String.valueOf(p.exitValue()), Files.readString(out), Files.readString(err)};
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }
}
