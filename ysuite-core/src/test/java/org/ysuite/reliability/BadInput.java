package org.ysuite.reliability;

import org.junit.jupiter.api.function.Executable;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One row of the bad-input matrix: a call with an invalid argument (or in an invalid state), the
 * exception it must throw, and the words its message must contain (the argument's name and the
 * limit it broke, or "closed" for use after close()).
 */
final class BadInput {

    final String name;
    final Executable call;
    final Class<? extends Throwable> type;
    final List<String> mustContain;

    private BadInput(String name, Executable call, Class<? extends Throwable> type, String... mustContain) {
        this.name = name;
        this.call = call;
        this.type = type;
        this.mustContain = Arrays.asList(mustContain);
    }

    /** Collects the rows of one class under test. */
    static final class Rows {
        private final String subject;
        final List<BadInput> rows = new ArrayList<>();

        Rows(String subject) {
            this.subject = subject;
        }

        /** IllegalArgumentException naming the argument, the limit and the bad value. */
        Rows iae(String what, Executable call, String argument, String limit, Object value) {
            rows.add(new BadInput(subject + ": " + what, call, IllegalArgumentException.class,
                    argument, limit, String.valueOf(value)));
            return this;
        }

        /** IllegalArgumentException whose message must contain every word given. */
        Rows iaeWords(String what, Executable call, String... words) {
            rows.add(new BadInput(subject + ": " + what, call, IllegalArgumentException.class, words));
            return this;
        }

        /** NullPointerException naming the argument. */
        Rows npe(String what, Executable call, String argument) {
            rows.add(new BadInput(subject + ": " + what + " (null " + argument + ")", call,
                    NullPointerException.class, argument));
            return this;
        }

        /** IllegalStateException whose message must contain every word given. */
        Rows ise(String what, Executable call, String... words) {
            rows.add(new BadInput(subject + ": " + what, call, IllegalStateException.class, words));
            return this;
        }

        /** IndexOutOfBoundsException (the JDK's Objects.checkFromIndexSize wording). */
        Rows ioobe(String what, Executable call, String... words) {
            rows.add(new BadInput(subject + ": " + what, call, IndexOutOfBoundsException.class, words));
            return this;
        }
    }
}
