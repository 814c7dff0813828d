package org.ysuite.bench.ipc;

/**
 * A fixed-size log-linear histogram of nanosecond values (no allocation per value, any count):
 * values below 64 exactly, above in 32 buckets per power of two (at most 1/32 = 3 % wide); the
 * mean is exact (sum / count), a percentile is its bucket's midpoint. Negative values count as 0.
 */
final class Latencies {

    private final long[] buckets = new long[2048];
    private long count;
    private long sum;

    /** Records one value. */
    void record(long nanos) {
        long v = Math.max(0, nanos);
        buckets[index(v)]++;
        count++;
        sum += v;
    }

    static int index(long v) {
        int shift = 58 - Long.numberOfLeadingZeros(v); // bits - 6
        return shift <= 0 ? (int) v : shift * 32 + (int) (v >>> shift);
    }

    /** The middle of bucket {@code i}. */
    static long value(int i) {
        if (i < 64) {
            return i;
        }
        int shift = i / 32 - 1;
        return ((long) (i - shift * 32) << shift) + (1L << shift) / 2;
    }

    void clear() {
        java.util.Arrays.fill(buckets, 0);
        count = 0;
        sum = 0;
    }

    long count() {
        return count;
    }

    /** The mean, or -1 with no value. */
    long mean() {
        return count == 0 ? -1 : sum / count;
    }

    /** The value below which {@code q} of the values are (a bucket's middle), or -1 with no value. */
    long percentile(double q) {
        if (count == 0) {
            return -1;
        }
        long rank = (long) Math.ceil(q * count);
        long seen = 0;
        for (int i = 0; i < buckets.length; i++) {
            seen += buckets[i];
            if (seen >= rank) {
                return value(i);
            }
        }
        return value(buckets.length - 1);
    }
}
