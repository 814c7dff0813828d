package org.ysuite.shared;

import java.io.IOException;

/**
 * The process on the other side of a {@link SharedYPipe} is gone: it died without closing its
 * side (its lock on the pipe file was dropped by the kernel while its side was still marked
 * open), or, for a writer waiting for space, the reader closed its side. A reader gets it only
 * after it has read every message the writer flushed before it died.
 */
public class PeerGoneException extends IOException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message which side is gone, and how
     */
    public PeerGoneException(String message) {
        super(message);
    }
}
