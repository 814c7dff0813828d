package org.ysuite.zmq.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A multiset of subscription prefixes (a topic subscribed twice needs two cancellations, as in libzmq).
 * One thread only.
 */
public final class Subscriptions {

    private final List<byte[]> prefixes = new ArrayList<>();
    private final List<int[]> counts = new ArrayList<>();

    /** Adds one subscription to {@code prefix}; returns true if it is new (count went 0 → 1). */
    public boolean add(byte[] prefix) {
        int i = indexOf(prefix);
        if (i >= 0) {
            counts.get(i)[0]++;
            return false;
        }
        prefixes.add(prefix.clone());
        counts.add(new int[] {1});
        return true;
    }

    /** Removes one subscription to {@code prefix}; returns true if it was the last (count went 1 → 0). */
    public boolean remove(byte[] prefix) {
        int i = indexOf(prefix);
        if (i < 0) {
            return false;
        }
        if (--counts.get(i)[0] == 0) {
            prefixes.remove(i);
            counts.remove(i);
            return true;
        }
        return false;
    }

    /** Whether {@code prefix} is subscribed (at least once). */
    public boolean contains(byte[] prefix) {
        return indexOf(prefix) >= 0;
    }

    /** Whether some subscription is a prefix of {@code data}. */
    public boolean matches(byte[] data) {
        for (int i = 0, n = prefixes.size(); i < n; i++) {
            byte[] p = prefixes.get(i);
            if (p.length <= data.length && Arrays.equals(p, 0, p.length, data, 0, p.length)) {
                return true;
            }
        }
        return false;
    }

    /** Every distinct prefix, each once (copies not made: do not modify). */
    public List<byte[]> prefixes() {
        return prefixes;
    }

    /** Every prefix with its count, for a peer's removal. */
    public int count(int index) {
        return counts.get(index)[0];
    }

    /** Whether there is no subscription. */
    public boolean isEmpty() {
        return prefixes.isEmpty();
    }

    private int indexOf(byte[] prefix) {
        for (int i = 0; i < prefixes.size(); i++) {
            if (Arrays.equals(prefixes.get(i), prefix)) {
                return i;
            }
        }
        return -1;
    }
}
