package org.ysuite.shared;

import java.io.IOException;

/**
 * The side of a {@link SharedYPipe} that was to be opened is held by another open pipe, in
 * another live process or in this one; the message names the side and the holder's process id as
 * the pipe file's header records it.
 */
public class PipeSideTakenException extends IOException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message the side, the file and the holder
     */
    public PipeSideTakenException(String message) {
        super(message);
    }
}
