package org.ysuite.agrona;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/shared-signaler.md's {@code java} block is {@link AeronSleepExample}'s code, character for
 * character: the example the page shows is the one the two-JVM test compiles and runs.
 */
class AeronDocSnippetTest {

    private static final Pattern JAVA_BLOCK = Pattern.compile("(?ms)^```java\\n(.*?)^```\\s*$");

    private static String read(Path file) throws IOException {
        return new String(Files.readAllBytes(file), StandardCharsets.UTF_8).replace("\r\n", "\n");
    }

    @Test
    void theDocsExampleIsTheTestedCode() throws IOException {
        Path module = Path.of("").toAbsolutePath();
        String doc = read(module.resolveSibling("docs").resolve("shared-signaler.md"));
        String example = read(module.resolve("src/test/java/org/ysuite/agrona/AeronSleepExample.java"));
        Matcher m = JAVA_BLOCK.matcher(doc);
        List<String> blocks = new ArrayList<>();
        while (m.find()) {
            blocks.add(m.group(1));
        }
        assertEquals(1, blocks.size(), "java blocks in docs/shared-signaler.md");
        for (String block : blocks) {
            assertTrue(example.contains(block), "docs/shared-signaler.md's java block is not in AeronSleepExample.java:\n"
                    + block);
        }
    }
}
