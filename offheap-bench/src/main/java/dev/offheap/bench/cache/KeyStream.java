package dev.offheap.bench.cache;

import java.util.SplittableRandom;

/**
 * Deterministic, seeded key streams for the hit-ratio benchmark, as indexes into a key array.
 *
 * <ul>
 * <li>{@code zipf}: {@code accesses} draws from {@code keyspace} keys whose popularity follows a Zipf
 *     law with exponent {@value #ZIPF_EXPONENT}: the i-th most popular key is drawn with probability
 *     proportional to {@code 1 / i^0.9}.
 * <li>{@code scan}: the same Zipf draws, interrupted after every {@value #SCAN_PERIOD} of them by a scan
 *     of {@value #SCAN_PERIOD} keys never seen before and never seen again (a batch job reading through
 *     the cache); half the accesses are scans. Recency-only policies lose their hot keys to each scan.
 * </ul>
 */
final class KeyStream {
    static final double ZIPF_EXPONENT = 0.9;
    static final int SCAN_PERIOD = 5_000;
    static final long SEED = 20_231_027L;

    private KeyStream() {
    }

    /**
     * @param kind     {@code zipf} or {@code scan}
     * @param accesses the stream's length
     * @param keyspace how many keys the Zipf draws choose from; scan keys are numbered from there on
     * @return the key indexes, in order
     * @throws IllegalArgumentException for another kind or a non-positive size
     */
    static int[] of(String kind, int accesses, int keyspace) {
        if (accesses <= 0 || keyspace <= 0) {
            throw new IllegalArgumentException("a key stream needs positive accesses and keyspace, got "
                    + accesses + " and " + keyspace);
        }
        double[] cdf = zipfCdf(keyspace);
        SplittableRandom random = new SplittableRandom(SEED);
        int[] stream = new int[accesses];
        switch (kind) {
            case "zipf" -> {
                for (int i = 0; i < accesses; i++) {
                    stream[i] = draw(cdf, random);
                }
            }
            case "scan" -> {
                int nextScanKey = keyspace;
                for (int i = 0; i < accesses; i++) {
                    boolean scanning = (i / SCAN_PERIOD) % 2 == 1;
                    stream[i] = scanning ? nextScanKey++ : draw(cdf, random);
                }
            }
            default -> throw new IllegalArgumentException("unknown key stream '" + kind + "' (zipf or scan)");
        }
        return stream;
    }

    /** @return how many distinct key indexes a stream of this kind may contain */
    static int keysNeeded(String kind, int accesses, int keyspace) {
        return "scan".equals(kind) ? keyspace + accesses / 2 + SCAN_PERIOD : keyspace;
    }

    private static double[] zipfCdf(int n) {
        double[] cdf = new double[n];
        double sum = 0;
        for (int i = 0; i < n; i++) {
            sum += 1.0 / Math.pow(i + 1, ZIPF_EXPONENT);
            cdf[i] = sum;
        }
        for (int i = 0; i < n; i++) {
            cdf[i] /= sum;
        }
        return cdf;
    }

    private static int draw(double[] cdf, SplittableRandom random) {
        double u = random.nextDouble();
        int lo = 0;
        int hi = cdf.length - 1;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (cdf[mid] < u) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
