package org.ysuite.bench.support;

import org.ysuite.YSocketPair;

/** Construction of the two YSocketPair variants (kept in one place). */
final class SocketPairs {

    private SocketPairs() {
    }

    static YSocketPair socketPair(int spin) {
        return new YSocketPair(YSocketPair.Kind.SOCKETPAIR, spin);
    }

    static YSocketPair eventFd(int spin) {
        return new YSocketPair(YSocketPair.Kind.EVENTFD, spin);
    }
}
