package org.ysuite.bench.support;

import org.ysuite.YSocketPair;

/** Construction of the two YSocketPair variants (kept in one place). */
final class SocketPairs {

    private SocketPairs() {
    }

    static YSocketPair socketPair(int spin) {
        return new YSocketPair(spin);
    }

    static YSocketPair eventFd(int spin) {
        // TODO: eventfd variant once its constructor lands
        return new YSocketPair(spin);
    }
}
