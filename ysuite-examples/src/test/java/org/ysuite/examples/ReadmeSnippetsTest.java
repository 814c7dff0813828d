package org.ysuite.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ysuite.YPipe;

/**
 * The README's {@code java} code blocks cannot drift from the tested examples: each block must
 * appear in {@code ReadmeExamples.java} character for character (its import lines among that
 * file's imports, the rest as one piece), and must compile on its own, as a reader would paste it.
 */
class ReadmeSnippetsTest {

    private static final Pattern JAVA_BLOCK = Pattern.compile("(?ms)^```java\\n(.*?)^```\\s*$");
    private static final Pattern CLASS_NAME = Pattern.compile("(?m)^(?:public |final )*class (\\w+)");

    /** The project's root: the first directory upwards from the working directory with a README.md. */
    private static Path projectRoot() {
        for (Path p = Paths.get("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve("README.md")) && Files.isDirectory(p.resolve("ysuite-examples"))) {
                return p;
            }
        }
        throw new AssertionError("no README.md above " + Paths.get("").toAbsolutePath());
    }

    private static String read(Path file) throws IOException {
        return new String(Files.readAllBytes(file), StandardCharsets.UTF_8).replace("\r\n", "\n");
    }

    /** The {@code java} blocks of one file, in order. */
    private static List<String> javaBlocks(String file) throws IOException {
        Matcher m = JAVA_BLOCK.matcher(read(projectRoot().resolve(file)));
        List<String> blocks = new ArrayList<>();
        while (m.find()) {
            blocks.add(m.group(1));
        }
        return blocks;
    }

    /** The README's {@code java} blocks, then docs/using.md's (the mailbox and the off-heap examples). */
    static List<String> readmeJavaBlocks() throws IOException {
        List<String> blocks = javaBlocks("README.md");
        assertEquals(2, blocks.size(), "the README's java blocks: the pipe and the ZeroMQ example");
        List<String> using = javaBlocks("docs/using.md");
        assertEquals(2, using.size(), "docs/using.md's java blocks: the mailbox and the off-heap pipe example");
        blocks.addAll(using);
        return blocks;
    }

    private static String examplesSource() throws IOException {
        return read(projectRoot().resolve(
                "ysuite-examples/src/main/java/org/ysuite/examples/ReadmeExamples.java"));
    }

    private static boolean isImport(String line) {
        return line.startsWith("import ");
    }

    /** The block without its import lines and the blank lines around them. */
    static String body(String block) {
        return block.lines().dropWhile(l -> isImport(l) || l.isBlank())
                .collect(Collectors.joining("\n", "", "\n"));
    }

    /** Where {@code body} stops matching {@code source}: the longest prefix of lines found in it. */
    private static String firstMismatch(String body, String source) {
        String[] lines = body.split("\n", -1);
        StringBuilder prefix = new StringBuilder();
        for (String line : lines) {
            String longer = prefix + line + "\n";
            if (!source.contains(longer)) {
                return "the README's line \"" + line + "\" (after " + prefix.toString().split("\n").length
                        + " matching lines)";
            }
            prefix.append(line).append('\n');
        }
        return "(none)";
    }

    @Test
    void everyReadmeBlockIsTheTestedExampleVerbatim() throws IOException {
        List<String> blocks = readmeJavaBlocks();
        String source = examplesSource();
        List<String> sourceImports = source.lines().filter(ReadmeSnippetsTest::isImport)
                .collect(Collectors.toList());
        for (String block : blocks) {
            String name = className(block);
            block.lines().filter(ReadmeSnippetsTest::isImport).forEach(imp ->
                    assertTrue(sourceImports.contains(imp),
                            name + ": the README imports what ReadmeExamples.java does not: " + imp));
            String body = body(block);
            if (!source.contains(body)) {
                fail(name + ": the README's block differs from ReadmeExamples.java at "
                        + firstMismatch(body, source));
            }
        }
    }

    private static String className(String block) {
        Matcher m = CLASS_NAME.matcher(block);
        assertTrue(m.find(), "a README java block declares no class:\n" + block);
        return m.group(1);
    }

    /** One source held in memory. */
    private static final class Source extends SimpleJavaFileObject {
        private final String code;

        Source(String className, String code) {
            super(URI.create("string:///" + className + Kind.SOURCE.extension), Kind.SOURCE);
            this.code = code;
        }

        @Override
        public CharSequence getCharContent(boolean ignoreEncodingErrors) {
            return code;
        }
    }

    private static String location(Class<?> c) throws URISyntaxException {
        return Paths.get(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }

    @Test
    void everyReadmeBlockCompilesAsPasted(@TempDir Path out) throws Exception {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertNotNull(javac, "the tests need a JDK's compiler");
        // ysuite-core, ysuite-zmq and what their public signatures name; nothing of the examples module
        String classPath = String.join(File.pathSeparator, location(YPipe.class), location(jnr.ffi.Pointer.class),
                location(org.ysuite.zmq.ZmqSocket.class), location(io.netty.channel.Channel.class),
                location(io.netty.buffer.ByteBuf.class), location(io.netty.util.ReferenceCounted.class));
        for (String block : readmeJavaBlocks()) {
            String name = className(block);
            Path dir = Files.createDirectories(out.resolve(name));
            DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
            boolean ok = javac.getTask(null, null, diagnostics,
                    List.of("--release", "17", "-proc:none", "-cp", classPath, "-d", dir.toString()),
                    null, List.of(new Source(name, block))).call();
            assertTrue(ok, name + " does not compile as pasted: " + diagnostics.getDiagnostics());
            assertTrue(Files.isRegularFile(dir.resolve(name + ".class")), name + ".class not written");
        }
    }
}
