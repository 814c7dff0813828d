package org.ysuite.bench.net;

import java.util.Arrays;

/**
 * Round-trip times of one peer, every sample kept (a run records at most a few hundred thousand):
 * the mean and nearest-rank percentiles. Single-threaded: the measuring thread adds and reads.
 */
public final class LatencyRecorder {

    private long[] samples;
    private int count;
    private boolean sorted;

    /**
     * A recorder with room for {@code expected} samples (it grows beyond).
     *
     * @param expected how many samples to expect, at least 1
     * @throws IllegalArgumentException if {@code expected} is below 1
     */
    public LatencyRecorder(int expected) {
        if (expected < 1) {
            throw new IllegalArgumentException("expected samples must be >= 1, not " + expected);
        }
        samples = new long[expected];
    }

    /**
     * Records one sample.
     *
     * @param nanos the round trip's time
     */
    public void add(long nanos) {
        if (count == samples.length) {
            samples = Arrays.copyOf(samples, 2 * samples.length);
        }
        samples[count++] = nanos;
        sorted = false;
    }

    /**
     * Returns the number of samples.
     *
     * @return how many were added
     */
    public int count() {
        return count;
    }

    /**
     * Returns the mean.
     *
     * @return nanoseconds; NaN without samples
     */
    public double mean() {
        if (count == 0) {
            return Double.NaN;
        }
        double sum = 0;
        for (int i = 0; i < count; i++) {
            sum += samples[i];
        }
        return sum / count;
    }

    /**
     * Returns the nearest-rank percentile: the smallest sample that at least {@code q} of the samples
     * do not exceed (p99.9 of 1,000 samples is the largest one; of 10,000, the tenth largest).
     *
     * @param q the fraction, 0 &lt; q &le; 1 (0.999 for p99.9)
     * @return nanoseconds; NaN without samples
     * @throws IllegalArgumentException if {@code q} is not in (0, 1]
     */
    public double percentile(double q) {
        if (!(q > 0 && q <= 1)) {
            throw new IllegalArgumentException("percentile fraction must be in (0, 1], not " + q);
        }
        if (count == 0) {
            return Double.NaN;
        }
        if (!sorted) {
            Arrays.sort(samples, 0, count);
            sorted = true;
        }
        // rank = ceil(q * n), computed on a rounded product so that 0.999 * 1000 is 999, not 999.0000000001
        long rank = (long) Math.ceil(Math.round(q * count * 1e6) / 1e6);
        return samples[(int) Math.max(0, rank - 1)];
    }
}
