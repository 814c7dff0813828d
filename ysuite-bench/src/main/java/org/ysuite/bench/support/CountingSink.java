package org.ysuite.bench.support;

import java.util.AbstractCollection;
import java.util.Iterator;
import java.util.function.Consumer;

/**
 * A collection that only counts what is added: the target of {@code drainTo} for the
 * java.util.concurrent peers and a {@link Consumer} for the others, so consumer-side batching
 * allocates nothing.
 *
 * @param <E> element type
 */
public final class CountingSink<E> extends AbstractCollection<E> implements Consumer<E> {

    private int count;
    private long checksum;

    @Override
    public boolean add(E e) {
        count++;
        checksum += e == null ? 0 : 1;
        return true;
    }

    @Override
    public void accept(E e) {
        add(e);
    }

    /**
     * Returns the count since the last call and resets it.
     *
     * @return elements added since the last call
     */
    public int take() {
        int c = count;
        count = 0;
        return c;
    }

    /**
     * Returns a value that depends on every element seen (keeps the reads alive).
     *
     * @return checksum
     */
    public long checksum() {
        return checksum;
    }

    @Override
    public Iterator<E> iterator() {
        throw new UnsupportedOperationException();
    }

    @Override
    public int size() {
        return count;
    }
}
