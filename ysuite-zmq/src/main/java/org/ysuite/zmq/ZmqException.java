package org.ysuite.zmq;

/**
 * A failed socket call, with the {@link ZmqError} a libzmq user would find in {@code errno}. The
 * message names the argument or the rule that was broken.
 */
public class ZmqException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final ZmqError kind;

    /**
     * @param kind the libzmq-like error
     * @param message what was wrong, naming the argument and the rule
     */
    public ZmqException(ZmqError kind, String message) {
        super(kind + ": " + message);
        this.kind = kind;
    }

    /**
     * @param kind the libzmq-like error
     * @param message what was wrong
     * @param cause the exception behind it
     */
    public ZmqException(ZmqError kind, String message, Throwable cause) {
        super(kind + ": " + message, cause);
        this.kind = kind;
    }

    /** The libzmq-like error ({@code errno}). */
    public ZmqError kind() {
        return kind;
    }
}
