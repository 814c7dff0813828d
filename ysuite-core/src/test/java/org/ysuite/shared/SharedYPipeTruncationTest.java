package org.ysuite.shared;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A pipe file truncated under both mapped sides, in a child JVM ({@link SharedTruncationChild}),
 * interpreted and with the JIT: the JVM must not crash (no hs_err file, a normal exit) and both
 * sides must end with the documented exception.
 */
class SharedYPipeTruncationTest extends SharedPipeFileFixture {

    @ParameterizedTest(name = "cut to {0}, {1}")
    @CsvSource({"0, -Xint", "half, -Xint", "0, -XX:+TieredCompilation", "half, -XX:+TieredCompilation"})
    void aTruncatedFileIsAnExceptionNotACrash(String cut, String mode) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        if (Runtime.version().feature() >= 24) {
            cmd.add("--enable-native-access=ALL-UNNAMED");
        }
        cmd.add("-Xmx64m");
        cmd.add("-XX:+UseSerialGC");
        cmd.add(mode);
        cmd.add("-XX:ErrorFile=" + dir.resolve("hs_err_%p.log"));
        cmd.add("-cp");
        cmd.add(SharedPipeChild.classPath());
        cmd.add(SharedTruncationChild.class.getName());
        cmd.add(dir.toString());
        cmd.add(cut);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String output;
        try {
            output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the child did not end: " + output);
        } finally {
            p.destroyForcibly();
            p.getOutputStream().close();
        }
        System.out.println("SharedYPipeTruncationTest " + cut + " " + mode + ": " + output.trim());
        List<Path> crashes;
        try (Stream<Path> files = Files.list(dir)) {
            crashes = files.filter(f -> f.getFileName().toString().startsWith("hs_err")).collect(Collectors.toList());
        }
        assertEquals(List.of(), crashes, "the JVM crashed: " + output);
        assertEquals(0, p.exitValue(), output);
        assertTrue(output.contains("OK writer="), output);
    }
}
