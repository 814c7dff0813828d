package org.ysuite.reliability;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The bad-input matrix: every public method of every ysuite type called with every class of
 * invalid argument (null, negative, zero and oversize capacities, capacities that are not powers
 * of two, messages larger than a pipe can ever hold, signal ids out of range, negative timeouts),
 * every operation after {@code close()}, and the second reader or writer where the type can
 * detect it. Each row asserts the exception's type and that its message names the argument and
 * the limit (or says "closed").
 */
class BadInputMatrixTest {

    /** The rows of every type, in one list (also used to count them). */
    static List<BadInput> allRows() {
        List<BadInput> all = new ArrayList<>();
        all.addAll(YPipeBadInputs.rows());
        all.addAll(OffHeapYPipeBadInputs.rows());
        all.addAll(MoreBadInputs.rows());
        return all;
    }

    @AfterAll
    static void closePipes() {
        OffHeapYPipeBadInputs.close();
        MoreBadInputs.close();
    }

    @TestFactory
    Stream<DynamicTest> matrix() {
        return allRows().stream().map(row -> DynamicTest.dynamicTest(row.name, () -> {
            Throwable e = assertThrows(row.type, row.call, row.name);
            assertEquals(row.type, e.getClass(), () -> row.name + ": exact type, got " + e);
            String message = e.getMessage();
            assertNotNull(message, () -> row.name + ": the exception has no message");
            for (String word : row.mustContain) {
                assertTrue(message.contains(word),
                        () -> row.name + ": message \"" + message + "\" does not name \"" + word + "\"");
            }
        }));
    }

    @Test
    void matrixCoversEveryType() {
        List<BadInput> all = allRows();
        System.out.println("[bad-input matrix] " + all.size() + " cases");
        for (String type : MoreBadInputs.TYPES) {
            assertTrue(all.stream().anyMatch(r -> r.name.startsWith(type + ":")), "no rows for " + type);
        }
    }
}
