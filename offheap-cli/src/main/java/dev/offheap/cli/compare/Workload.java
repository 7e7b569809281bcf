package dev.offheap.cli.compare;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One measured setting of one variant, as the parent passes it to the variant's JVM: what to cache,
 * how to load it, and how to drive it. Immutable.
 *
 * @param variant the cache
 * @param valueSize description size in bytes, 1 or more
 * @param maxEntries the cache's bound in entries, 1 or more
 * @param offers the key space: ids 0 to offers - 1, drawn uniformly at random
 * @param threads request threads, 1 or more
 * @param warmupRequests requests before the measured phase, in all threads together, 0 or more
 * @param requests measured requests in all threads together; 0 when {@code duration} is set
 * @param duration how long the measured phase runs, or null when {@code requests} is set
 * @param rate the measured phase's arrival rate in requests per second, all threads together, or 0 for a
 *             closed loop (see {@link CompareOptions#rate()})
 * @param loader where misses load from
 * @param latency the in-memory loader's latency (unused with the database)
 * @param dbDir the database folder (unused with the in-memory loader)
 * @param seed the random seed; thread {@code i} draws its ids from {@code seed + i}
 * @param nmt whether the JVM tracks native memory (-XX:NativeMemoryTracking=summary)
 */
public record Workload(Variant variant, int valueSize, int maxEntries, long offers, int threads, long warmupRequests,
        long requests, Duration duration, long rate, Loader loader, Duration latency, Path dbDir, long seed, boolean nmt) {

    /** Where a miss loads from. */
    public enum Loader {
        /** The embedded H2 database on local disk. */
        DATABASE("db"),
        /** Generated in memory after a fixed latency. */
        MEMORY("memory");

        private final String label;

        Loader(String label) {
            this.label = label;
        }

        /** @return the name on the command line */
        public String label() {
            return label;
        }
    }

    /**
     * Opens the store this workload loads from.
     *
     * @param log told what happens to the database (created, rebuilt)
     * @return the store
     */
    public OfferStore openStore(java.util.function.Consumer<String> log) {
        return switch (loader) {
            case DATABASE -> H2OfferStore.open(dbDir, offers, valueSize, threads, log);
            case MEMORY -> new LatencyOfferStore(offers, valueSize, latency);
        };
    }

    /** @return the arguments that carry this workload to a variant's JVM ({@link #fromArgs(List)} reads them) */
    public List<String> toArgs() {
        List<String> args = new ArrayList<>();
        args.add("variant=" + variant.label());
        args.add("valueSize=" + valueSize);
        args.add("maxEntries=" + maxEntries);
        args.add("offers=" + offers);
        args.add("threads=" + threads);
        args.add("warmupRequests=" + warmupRequests);
        args.add("requests=" + requests);
        args.add("durationNanos=" + (duration == null ? 0 : duration.toNanos()));
        args.add("rate=" + rate);
        args.add("loader=" + loader.label());
        args.add("latencyNanos=" + latency.toNanos());
        args.add("dbDir=" + dbDir.toAbsolutePath());
        args.add("seed=" + seed);
        args.add("nmt=" + nmt);
        return args;
    }

    /**
     * @param args {@code key=value} arguments as {@link #toArgs()} writes them
     * @return the workload
     * @throws IllegalArgumentException if one is missing or malformed
     */
    public static Workload fromArgs(List<String> args) {
        Map<String, String> m = new HashMap<>();
        for (String a : args) {
            int eq = a.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("expected key=value, got '" + a + "'");
            }
            m.put(a.substring(0, eq), a.substring(eq + 1));
        }
        long durationNanos = Long.parseLong(need(m, "durationNanos"));
        String loader = need(m, "loader");
        return new Workload(
                Variant.byLabel(need(m, "variant")).orElseThrow(() -> new IllegalArgumentException(
                        "unknown variant '" + m.get("variant") + "'")),
                Integer.parseInt(need(m, "valueSize")), Integer.parseInt(need(m, "maxEntries")),
                Long.parseLong(need(m, "offers")), Integer.parseInt(need(m, "threads")),
                Long.parseLong(need(m, "warmupRequests")), Long.parseLong(need(m, "requests")),
                durationNanos == 0 ? null : Duration.ofNanos(durationNanos), Long.parseLong(need(m, "rate")),
                loader.equals(Loader.MEMORY.label()) ? Loader.MEMORY : Loader.DATABASE,
                Duration.ofNanos(Long.parseLong(need(m, "latencyNanos"))), Path.of(need(m, "dbDir")),
                Long.parseLong(need(m, "seed")), Boolean.parseBoolean(need(m, "nmt")));
    }

    private static String need(Map<String, String> m, String key) {
        String v = m.get(key);
        if (v == null) {
            throw new IllegalArgumentException("missing " + key + "=...");
        }
        return v;
    }
}
