package org.ysuite.moduletest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.spi.ToolProvider;
import java.util.stream.Stream;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The consumer pom of {@code docs/using.md} ("A complete consumer pom"), taken from the document
 * itself so that it cannot drift, built by a real {@code mvn package} with a small source file,
 * on the JDK of the build.
 *
 * <p>The build's own ysuite artifacts are not installed anywhere (CI runs {@code mvn verify}), and
 * the shared local repository must not receive them. So the consumer's build gets a local
 * repository of its own: a folder whose entries are links to the build's local repository (every
 * plugin and third-party artifact found there, and downloads, when online, go there as usual),
 * except {@code org/ysuite}, which holds this build's ysuite-parent, ysuite-bom and ysuite-core
 * (the jar this module's tests run against). The consumer's Maven is the one that runs this build
 * ({@code maven.home}), offline, or online where a plugin it needs is not in the repository yet.
 */
@Timeout(180)
class ConsumerPomTest {

    private static final String HEADING = "### A complete consumer pom";

    @Test
    void theDocumentedConsumerPomBuilds(@TempDir Path temp) throws Exception {
        Path root = Paths.get("").toAbsolutePath().getParent();
        String pom = documentedPom(root.resolve("docs").resolve("using.md"));
        String version = System.getProperty("ysuite.version");
        assertTrue(version != null && !version.isEmpty(), "ysuite.version is set by the pom");
        assertTrue(pom.contains("<version>" + version + "</version>"), "the documented BOM's version is "
                + version + ", this build's");

        Path project = temp.resolve("consumer");
        Path source = project.resolve(Paths.get("src", "main", "java", "example", "Hello.java"));
        Files.createDirectories(source.getParent());
        Files.writeString(project.resolve("pom.xml"), pom, StandardCharsets.UTF_8);
        Files.writeString(source, String.join("\n",
                "package example;",
                "",
                "public class Hello {",
                "    public static void main(String[] args) {",
                "        org.ysuite.YPipe<String> pipe = new org.ysuite.YPipe<>();",
                "        pipe.write(\"hello\");",
                "        pipe.flush();",
                "        System.out.println(pipe.read());",
                "    }",
                "}",
                ""), StandardCharsets.UTF_8);

        Path repo = temp.resolve("repo");
        List<Path> links = new ArrayList<>();
        try {
            linkedRepository(Paths.get(System.getProperty("ysuite.local.repository")), repo, links);
            Path ysuite = repo.resolve(Paths.get("org", "ysuite"));
            put(ysuite, "ysuite-parent", version, "pom", root.resolve("pom.xml"));
            put(ysuite, "ysuite-bom", version, "pom", root.resolve(Paths.get("ysuite-bom", "pom.xml")));
            put(ysuite, "ysuite-core", version, "pom", root.resolve(Paths.get("ysuite-core", "pom.xml")));
            put(ysuite, "ysuite-core", version, "jar", coreJar(temp));

            // Offline first (every plugin it needs is in this build's repository once it has built
            // once); online where one is missing and this machine may download it.
            Path log = temp.resolve("mvn.log");
            int rc = mvn(project, repo, log, true);
            if (rc != 0 && Files.readString(log).contains("offline")) {
                rc = mvn(project, repo, log, false);
            }
            assertEquals(0, rc, "mvn package of the documented pom failed:\n" + Files.readString(log));
            Path jar = project.resolve(Paths.get("target", "ysuite-consumer-1.0-SNAPSHOT.jar"));
            try (ZipFile z = new ZipFile(jar.toFile())) {
                assertTrue(z.getEntry("example/Hello.class") != null, "the consumer's jar holds its class");
            }
        } finally {
            for (Path link : links) {
                Files.deleteIfExists(link); // the link only: @TempDir's cleanup must not walk into the shared repository
            }
        }
    }

    /** The first {@code xml} block after {@link #HEADING} in {@code doc}. */
    static String documentedPom(Path doc) throws IOException {
        String text = Files.readString(doc, StandardCharsets.UTF_8);
        int heading = text.indexOf(HEADING);
        assertTrue(heading >= 0, doc + " has no \"" + HEADING + "\"");
        int start = text.indexOf("```xml\n", heading);
        int end = text.indexOf("\n```", start + 1);
        assertTrue(start >= 0 && end > start, doc + ": no xml block after \"" + HEADING + "\"");
        return text.substring(start + "```xml\n".length(), end + 1);
    }

    /**
     * Makes {@code repo} a local repository that sees everything in {@code shared} but
     * {@code org/ysuite}: a link per entry, {@code org} a folder of links. The links made are
     * added to {@code links}.
     */
    private static void linkedRepository(Path shared, Path repo, List<Path> links) throws IOException {
        Files.createDirectories(repo.resolve("org"));
        if (!Files.isDirectory(shared)) {
            return; // nothing downloaded yet: the consumer's build downloads into its own
        }
        try (Stream<Path> top = Files.list(shared)) {
            for (Path entry : (Iterable<Path>) top::iterator) {
                if (!entry.getFileName().toString().equals("org")) {
                    links.add(Files.createSymbolicLink(repo.resolve(entry.getFileName().toString()), entry));
                }
            }
        }
        Path org = shared.resolve("org");
        if (Files.isDirectory(org)) {
            try (Stream<Path> groups = Files.list(org)) {
                for (Path group : (Iterable<Path>) groups::iterator) {
                    if (!group.getFileName().toString().equals("ysuite")) {
                        links.add(Files.createSymbolicLink(repo.resolve("org").resolve(group.getFileName().toString()),
                                group));
                    }
                }
            }
        }
    }

    /** Puts {@code file} into {@code group} (a repository folder) as {@code artifact-version.type}. */
    private static void put(Path group, String artifact, String version, String type, Path file) throws IOException {
        Path dir = group.resolve(artifact).resolve(version);
        Files.createDirectories(dir);
        Files.copy(file, dir.resolve(artifact + "-" + version + "." + type));
    }

    /**
     * ysuite-core as this module's tests see it (target/module-path.txt): its jar, or, where the
     * build stopped before packaging it, its classes folder made into a jar.
     */
    private static Path coreJar(Path temp) throws IOException {
        for (String entry : ConsumerModule.deps().split(File.pathSeparator)) {
            Path p = Paths.get(entry);
            String name = p.getFileName().toString();
            if (name.startsWith("ysuite-core-") && name.endsWith(".jar")) {
                return p;
            }
            if (Files.isDirectory(p) && p.endsWith(Paths.get("ysuite-core", "target", "classes"))) {
                Path jar = temp.resolve("ysuite-core.jar");
                ToolProvider tool = ToolProvider.findFirst("jar").orElseThrow();
                int rc = tool.run(System.out, System.err, "--create", "--file", jar.toString(), "-C", p.toString(), ".");
                assertEquals(0, rc, "jar of " + p);
                return jar;
            }
        }
        throw new AssertionError("ysuite-core is not among the module's dependencies: " + ConsumerModule.deps());
    }

    /** Runs {@code mvn -B -q [-o] package} on {@code project} with the local repository {@code repo}; its exit status. */
    private static int mvn(Path project, Path repo, Path log, boolean offline) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(mvn(), "-B", "-q"));
        if (offline) {
            command.add("-o");
        }
        command.addAll(List.of("-Dmaven.repo.local=" + repo, "-f", project.resolve("pom.xml").toString(), "package"));
        ProcessBuilder builder = new ProcessBuilder(command).directory(project.toFile())
                .redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        builder.environment().remove("MAVEN_ARGS");
        Process p = builder.start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor();
            throw new AssertionError("mvn package ran over 120 s: " + Files.readString(log));
        }
        return p.exitValue();
    }

    /** The Maven that runs this build ({@code maven.home}), else {@code mvn} from the PATH. */
    private static String mvn() {
        String home = System.getProperty("ysuite.maven.home");
        if (home != null && !home.isEmpty()) {
            Path bin = Paths.get(home, "bin", "mvn");
            if (Files.isExecutable(bin)) {
                return bin.toString();
            }
        }
        return "mvn";
    }
}
