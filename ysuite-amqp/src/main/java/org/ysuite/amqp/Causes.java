package org.ysuite.amqp;

/**
 * Failures told as text (a loss's cause) with what caused them: amqp-client's IOExceptions often
 * say nothing themselves.
 */
final class Causes {

    private Causes() {
    }

    /** {@code e} and its causes (at most four), each as its {@code toString}. */
    static String describe(Throwable e) {
        StringBuilder b = new StringBuilder(String.valueOf(e));
        Throwable c = e.getCause();
        for (int i = 0; i < 4 && c != null && c != e; i++, c = c.getCause()) {
            b.append(", caused by ").append(c);
        }
        return b.toString();
    }
}
