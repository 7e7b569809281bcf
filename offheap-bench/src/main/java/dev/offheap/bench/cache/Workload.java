package dev.offheap.bench.cache;

import java.util.SplittableRandom;

/**
 * The keys and values of a cache benchmark: {@code keys} distinct {@code Long} keys (boxed once, so
 * no variant pays for boxing in the measured code) and a few value templates of {@code valueBytes}
 * bytes each, with different contents so that no cache can share them.
 *
 * <p>Every put stores a {@linkplain #freshValue(int) fresh copy} of a template: a service caches
 * values it has just built, and on the heap those copies are what the garbage collector has to
 * trace and move once the cache holds them. The copy is the same work for every variant.
 *
 * <p>Immutable after construction; shared by all threads of a benchmark.
 */
final class Workload {
    /** How many distinct value templates there are; a power of two. */
    static final int TEMPLATES = 8;

    final int keyCount;
    final int valueBytes;
    final Long[] keys;
    final byte[][] templates;

    private Workload(int keyCount, int valueBytes) {
        this.keyCount = keyCount;
        this.valueBytes = valueBytes;
        this.keys = new Long[keyCount];
        for (int i = 0; i < keyCount; i++) {
            // spread the keys so that no cache sees a dense run of small integers
            keys[i] = (long) i * 0x9E3779B97F4A7C15L;
        }
        this.templates = new byte[TEMPLATES][];
        SplittableRandom random = new SplittableRandom(42);
        for (int t = 0; t < TEMPLATES; t++) {
            templates[t] = new byte[valueBytes];
            for (int i = 0; i < valueBytes; i++) {
                templates[t][i] = (byte) random.nextInt();
            }
        }
    }

    /**
     * Parses a workload parameter.
     *
     * @param spec {@code <keys>x<valueBytes>}, e.g. {@code 1000000x100}
     * @return the workload
     * @throws IllegalArgumentException if the text is not of that form or a number is not positive
     */
    static Workload parse(String spec) {
        int x = spec.indexOf('x');
        if (x <= 0 || x == spec.length() - 1) {
            throw new IllegalArgumentException("workload must be <keys>x<valueBytes>, e.g. 1000000x100, got '" + spec + "'");
        }
        int keys;
        int bytes;
        try {
            keys = Integer.parseInt(spec.substring(0, x));
            bytes = Integer.parseInt(spec.substring(x + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("workload must be <keys>x<valueBytes>, e.g. 1000000x100, got '" + spec + "'", e);
        }
        if (keys <= 0 || bytes <= 0) {
            throw new IllegalArgumentException("workload needs a positive key count and value size, got '" + spec + "'");
        }
        return new Workload(keys, bytes);
    }

    /** @return the bytes of all values together */
    long valueBytesTotal() {
        return (long) keyCount * valueBytes;
    }

    /**
     * @param i any int; selects a template
     * @return a new array with a template's contents
     */
    byte[] freshValue(int i) {
        return templates[i & (TEMPLATES - 1)].clone();
    }

    /**
     * @param index a key index
     * @return the template that key {@code index} is first stored with
     */
    byte[] initialValue(int index) {
        return templates[index & (TEMPLATES - 1)];
    }

    /**
     * Stores every key of the workload with its {@link #initialValue}, in key order.
     *
     * @param put the cache's put
     */
    void putEach(java.util.function.BiConsumer<Long, byte[]> put) {
        for (int i = 0; i < keyCount; i++) {
            put.accept(keys[i], initialValue(i));
        }
    }

    @Override
    public String toString() {
        return keyCount + " keys x " + valueBytes + " bytes";
    }
}
