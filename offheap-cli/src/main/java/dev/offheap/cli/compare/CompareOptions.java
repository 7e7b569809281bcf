package dev.offheap.cli.compare;

import static dev.offheap.cli.OptionValues.count;
import static dev.offheap.cli.OptionValues.items;
import static dev.offheap.cli.OptionValues.nonEmpty;
import static dev.offheap.cli.OptionValues.noValue;
import static dev.offheap.cli.OptionValues.next;
import static dev.offheap.cli.OptionValues.once;

import dev.offheap.cli.OptionValues;
import dev.offheap.cli.UsageException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * The parsed command line of {@code offheap compare}. Lists (value sizes, max entries) run as a sweep:
 * every value size with every max entries. Immutable.
 *
 * @param valueSizes description sizes in bytes
 * @param maxEntries cache bounds in entries
 * @param variants the variants, in the order they run
 * @param threads request threads
 * @param requests measured requests (all threads), or 0 with {@code duration}
 * @param duration the measured phase's length, or null with {@code requests}
 * @param rate the measured phase's arrival rate in requests per second, all threads together (an open
 *             loop: each request starts at its scheduled time, and its latency counts from then), or 0
 *             for a closed loop (each thread sends its next request when the last one returns)
 * @param warmupRequests requests before the measured phase, or {@link #AUTO} for {@link #autoWarmup(int)}
 * @param keys the key space, at least the largest max entries, or 0 for twice each setting's max entries
 * @param heap the variant JVMs' -Xmx and -Xms in bytes, or 0 for {@link #autoHeap(int, int)} per setting
 * @param collector the garbage collector
 * @param loader where misses load from
 * @param latency the in-memory loader's latency
 * @param db the database folder
 * @param out the output folder
 * @param seed the random seed
 * @param nmt whether the variant JVMs track native memory
 * @param timeout how long one variant JVM may run before it is killed
 * @param dryRun print the plan and run nothing
 */
public record CompareOptions(List<Integer> valueSizes, List<Integer> maxEntries, List<Variant> variants, int threads,
        long requests, Duration duration, long rate, long warmupRequests, long keys, long heap, Collector collector,
        Workload.Loader loader, Duration latency, Path db, Path out, long seed, boolean nmt, Duration timeout,
        boolean dryRun) {

    /** Default value size in bytes: the seed's 100,000-byte descriptions. */
    public static final int DEFAULT_VALUE_SIZE = 100_000;
    /** Default cache bound: the seed's 5,000 entries. */
    public static final int DEFAULT_MAX_ENTRIES = 5_000;
    /** Default request threads: the seed's 10. */
    public static final int DEFAULT_THREADS = 10;
    /**
     * Default measured requests, all threads together: a measured phase of 10-30 seconds per variant on
     * 2 cores. A fifth of this left {@code off-heap} one young collection, whose single pause set its GC-time
     * ratio (it moved by 30% between two runs); this many give it several, and the whole default run stays
     * under 2 minutes.
     */
    public static final long DEFAULT_REQUESTS = 1_000_000;
    /** The highest {@code --rate}, in requests per second: far beyond what one machine's cache service serves. */
    public static final long MAX_RATE = 100_000_000;
    /**
     * Warmup requests per max entry with {@code --warmup auto} (the default): 4 x max entries fills a cache
     * over the default key space (twice the max entries: filling it takes about 1.4 x max entries uniform
     * requests) with room for the JIT to compile, and is 20,000 at the default 5,000 entries.
     */
    public static final int WARMUP_PER_ENTRY = 4;
    /** {@link #warmupRequests()} when it follows each setting's max entries ({@link #autoWarmup(int)}). */
    public static final long AUTO = -1;
    /** Largest value size accepted: 64 MiB. */
    public static final int MAX_VALUE_SIZE = 64 << 20;
    /** Largest max entries accepted. */
    public static final int MAX_ENTRIES = 10_000_000;
    /**
     * How long a variant JVM may run without {@code --timeout}, beyond a measured phase whose length the
     * command line sets ({@link #defaultTimeout(Duration)}).
     */
    static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(10);

    /** The garbage collectors the variant JVMs can run with. */
    public enum Collector {
        /** G1, the JDK's default. */
        G1("g1", "-XX:+UseG1GC"),
        /** ZGC (generational on JDK 25). */
        ZGC("zgc", "-XX:+UseZGC"),
        /** The parallel collector. */
        PARALLEL("parallel", "-XX:+UseParallelGC");

        private final String label;
        private final String flag;

        Collector(String label, String flag) {
            this.label = label;
            this.flag = flag;
        }

        /** @return the name on the command line */
        public String label() {
            return label;
        }

        /** @return the JVM flag that selects it */
        public String flag() {
            return flag;
        }
    }

    /** @return the default database folder: $XDG_CACHE_HOME/offheap/compare, else ~/.cache/offheap/compare */
    public static Path defaultDb() {
        String xdg = System.getenv("XDG_CACHE_HOME");
        Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache");
        return base.resolve("offheap").resolve("compare");
    }

    /**
     * The heap each variant JVM of a setting gets unless {@code --heap} says otherwise ({@code --heap auto}):
     * room for that setting's on-heap cache ({@code valueSize x maxEntries}) one and a half times, plus 256 MiB
     * for everything else, rounded up to 256 MiB, at least 512 MiB. Every variant of a setting gets the same
     * heap, so the cache takes the same share of it (about two thirds) at every setting of a sweep; the
     * largest setting of the seed's sweep, 300,000 B x 15,000 entries (4.5 GB of values), gets 6.75 GiB.
     *
     * @param valueSize the value size in bytes
     * @param maxEntries the max entries
     * @return the heap size in bytes
     */
    public static long autoHeap(int valueSize, int maxEntries) {
        long cache = (long) valueSize * maxEntries;
        long quarter = 256L << 20;
        long heap = cache * 3 / 2 + quarter;
        heap = (heap + quarter - 1) / quarter * quarter;
        return Math.max(512L << 20, heap);
    }

    /**
     * @param valueSize one of the value sizes
     * @param entries one of the max entries
     * @return the heap every variant JVM of that setting gets: {@code --heap}, or {@link #autoHeap(int, int)}
     */
    public long heapFor(int valueSize, int entries) {
        return heap != 0 ? heap : autoHeap(valueSize, entries);
    }

    /**
     * @param maxEntries a setting's max entries
     * @return the warmup requests of that setting with {@code --warmup auto}: {@value #WARMUP_PER_ENTRY} x max entries
     */
    public static long autoWarmup(int maxEntries) {
        return (long) WARMUP_PER_ENTRY * maxEntries;
    }

    /**
     * @param entries one of the max entries
     * @return the warmup requests at that setting: {@code --warmup}, or {@link #autoWarmup(int)}
     */
    public long warmupFor(int entries) {
        return warmupRequests != AUTO ? warmupRequests : autoWarmup(entries);
    }

    /**
     * @param variant the variant
     * @param valueSize one of the value sizes
     * @param entries one of the max entries
     * @return the workload of that variant at that setting
     */
    public Workload workload(Variant variant, int valueSize, int entries) {
        return new Workload(variant, valueSize, entries, keys != 0 ? keys : 2L * entries, threads, warmupFor(entries),
                requests, duration, rate, loader, latency, db, seed, nmt);
    }

    /**
     * Parses the arguments of {@code offheap compare}.
     *
     * @param argv the arguments after "compare"
     * @return the options
     * @throws UsageException if an option is unknown, lacks its value, or has a value that makes no sense
     *         (among them a {@code --keys} below a {@code --max-entries}: a cache that could never fill)
     */
    public static CompareOptions parse(List<String> argv) throws UsageException {
        List<Integer> sizes = List.of(DEFAULT_VALUE_SIZE);
        List<Integer> entries = List.of(DEFAULT_MAX_ENTRIES);
        List<Variant> variants = Variant.defaults();
        int threads = DEFAULT_THREADS;
        Long requests = null;
        Duration duration = null;
        long rate = 0;
        long warmup = AUTO;
        long keys = 0;
        long heap = 0;
        Collector collector = Collector.G1;
        Workload.Loader loader = Workload.Loader.DATABASE;
        Duration latency = null;
        Path db = null;
        Path out = Path.of("offheap-results", "compare");
        long seed = 42;
        boolean nmt = false;
        Duration timeout = null;
        boolean dryRun = false;
        Map<String, String> given = new HashMap<>();
        for (int i = 0; i < argv.size(); i++) {
            OptionValues.Split split = OptionValues.split(argv.get(i));
            String arg = split.option();
            String value = split.inline();
            if (VALUE_OPTIONS.contains(arg)) {
                once(given, ALIASES.getOrDefault(arg, arg), arg);
                // an empty value only of an option that takes one: "--bogus=" is unknown, "--nmt=" takes no value
                if (value == null) {
                    value = next(argv, ++i, arg);
                }
                nonEmpty(arg, value);
            }
            switch (arg) {
                case "--value-size", "--value-sizes", "-s" -> sizes = sizeList(arg, value,
                        MAX_VALUE_SIZE);
                case "--max-entries", "-e" -> entries = countList(arg, value, MAX_ENTRIES);
                case "--variants", "--variant" -> variants = variantList(arg, value);
                case "--threads", "-t" -> threads = (int) count(arg, value, 1, 1024);
                case "--requests", "-n" -> requests = count(arg, value, 1, Long.MAX_VALUE / 2);
                case "--duration", "-d" -> duration = OptionValues.duration(arg, value, false);
                case "--rate", "-r" -> rate = count(arg, value, 1, MAX_RATE);
                case "--warmup", "-w" -> {
                    try {
                        warmup = isAuto(value) ? AUTO : count(arg, value, 0, Long.MAX_VALUE / 2);
                    } catch (UsageException e) {
                        throw orAuto(e);
                    }
                }
                case "--keys", "-k" -> keys = count(arg, value, 1, Long.MAX_VALUE / 2);
                case "--heap" -> {
                    try {
                        heap = isAuto(value) ? 0 : OptionValues.size(arg, value, 16L << 20, 1L << 42);
                    } catch (UsageException e) {
                        throw orAuto(e);
                    }
                }
                case "--gc" -> {
                    collector = switch (OptionValues.keyword(value)) {
                        case "g1" -> Collector.G1;
                        case "zgc", "z" -> Collector.ZGC;
                        case "parallel" -> Collector.PARALLEL;
                        default -> throw new UsageException("--gc: unknown collector '" + value
                                + "' (collectors: g1, zgc, parallel)");
                    };
                }
                case "--loader" -> {
                    loader = switch (OptionValues.keyword(value)) {
                        case "db", "database" -> Workload.Loader.DATABASE;
                        case "memory" -> Workload.Loader.MEMORY;
                        default -> throw new UsageException("--loader: unknown loader '" + value
                                + "' (loaders: db, memory)");
                    };
                }
                case "--latency" -> latency = OptionValues.duration(arg, value, true);
                case "--db" -> db = Path.of(value);
                case "--out", "-o" -> out = Path.of(value);
                case "--seed" -> {
                    String v = value;
                    try {
                        seed = OptionValues.wholeNumber(v);
                    } catch (NumberFormatException e) {
                        throw new UsageException("--seed: expected a whole number, got '" + v + "' ("
                                + OptionValues.HOW_NUMBERS_ARE_WRITTEN + ")");
                    }
                }
                case "--timeout" -> timeout = OptionValues.duration(arg, value, false);
                case "--nmt" -> {
                    noValue(arg, value);
                    nmt = true;
                }
                case "--dry-run" -> {
                    noValue(arg, value);
                    dryRun = true;
                }
                default -> throw new UsageException(arg.startsWith("-") ? "unknown option '" + argv.get(i) + "'"
                        : "unexpected argument '" + arg + "' (compare takes only options)");
            }
        }
        if (requests != null && duration != null) {
            throw new UsageException("--requests and --duration exclude each other: give one");
        }
        if (requests != null && requests < threads) {
            throw new UsageException("--requests " + requests + " is fewer than --threads " + threads
                    + ": every thread needs at least one request");
        }
        if (rate != 0 && rate < threads) {
            throw new UsageException("--rate " + rate + " is below --threads " + threads
                    + ": every thread needs at least one request per second");
        }
        int largestEntries = entries.stream().mapToInt(Integer::intValue).max().orElse(0);
        checkKeysHoldTheCache(keys, largestEntries);
        if (latency != null && loader != Workload.Loader.MEMORY) {
            throw new UsageException("--latency applies to --loader memory only");
        }
        if (db != null && loader != Workload.Loader.DATABASE) {
            throw new UsageException("--db applies to --loader db only");
        }
        if (timeout == null) {
            // a fixed 10 minutes killed every variant of a longer --duration or --rate schedule before it could end
            long n = requests != null ? requests : DEFAULT_REQUESTS;
            timeout = defaultTimeout(duration != null ? duration : rate == 0 ? Duration.ZERO
                    : Duration.ofSeconds(n / rate, (n % rate) * 1_000_000_000L / rate));
        }
        if (loader == Workload.Loader.DATABASE) {
            String unusable = H2OfferStore.unusableFolder(db != null ? db : defaultDb());
            if (unusable != null) {
                throw new UsageException("--db: " + unusable);
            }
        }
        String tooMany = loader != Workload.Loader.DATABASE ? null : H2OfferStore.tooManyOffers(
                keys != 0 ? keys : 2L * largestEntries, keys != 0);
        if (tooMany != null) {
            throw new UsageException(tooMany);
        }
        return new CompareOptions(sizes, entries, variants, threads, duration != null ? 0 : requests != null ? requests
                : DEFAULT_REQUESTS, duration, rate, warmup, keys, heap, collector, loader,
                latency != null ? latency : Duration.ofNanos(200_000), db != null ? db : defaultDb(), out, seed, nmt,
                timeout, dryRun);
    }

    /**
     * Refuses a key space smaller than the cache, for compare and serve alike: a cache with room for more offers
     * than there are never fills, nothing is evicted, nearly every request hits, and a report or a stats page
     * would show caches that were never full under their max entries.
     *
     * @param keys {@code --keys}, or 0 where it was not given (twice the max entries)
     * @param maxEntries {@code --max-entries}, the largest of a sweep
     * @throws UsageException if {@code keys} is given and below {@code maxEntries}; the message names both and
     *         what to change
     */
    public static void checkKeysHoldTheCache(long keys, int maxEntries) throws UsageException {
        if (keys != 0 && keys < maxEntries) {
            throw new UsageException("--keys " + keys + " is fewer than --max-entries " + maxEntries
                    + ": the cache would never fill, so evictions, the hit ratio and the memory of a full cache"
                    + " would not be measured; give --keys of at least " + maxEntries + " (default: 2 x max"
                    + " entries), or --max-entries of at most " + keys);
        }
    }

    /**
     * The timeout of a variant JVM when {@code --timeout} is not given: {@link #DEFAULT_TIMEOUT} on top of
     * the measured phase, when the command line fixes its length, so that a long phase is not killed before
     * it can end; the phase counts for at most {@link OptionValues#MAX_DURATION}, so that the timeout stays
     * within what its waits can take in milliseconds.
     *
     * @param measured how long the measured phase takes at least ({@code --duration}, or {@code --requests}
     *                 over {@code --rate}), or zero where that depends on the variant (a closed loop)
     * @return the timeout
     */
    static Duration defaultTimeout(Duration measured) {
        Duration phase = measured.compareTo(OptionValues.MAX_DURATION) > 0 ? OptionValues.MAX_DURATION : measured;
        return DEFAULT_TIMEOUT.plus(phase);
    }

    /** The options that take a value. */
    private static final java.util.Set<String> VALUE_OPTIONS = java.util.Set.of("--value-size", "--value-sizes", "-s",
            "--max-entries", "-e", "--variants", "--variant", "--threads", "-t", "--requests", "-n", "--duration", "-d",
            "--rate", "-r", "--warmup", "-w", "--keys", "-k", "--heap", "--gc", "--loader", "--latency", "--db", "--out", "-o", "--seed",
            "--timeout");

    /**
     * The short and alternative names of the options that take a value, each with its canonical name: a
     * value option may be given once, under whichever name.
     */
    private static final Map<String, String> ALIASES = Map.ofEntries(Map.entry("--value-sizes", "--value-size"),
            Map.entry("-s", "--value-size"), Map.entry("-e", "--max-entries"), Map.entry("--variant", "--variants"),
            Map.entry("-t", "--threads"), Map.entry("-n", "--requests"), Map.entry("-d", "--duration"),
            Map.entry("-r", "--rate"), Map.entry("-w", "--warmup"), Map.entry("-k", "--keys"), Map.entry("-o", "--out"));

    /** @return whether an option's value is {@code auto}, in any case */
    private static boolean isAuto(String value) {
        return OptionValues.keyword(value).equals("auto");
    }

    /** @return the refusal of an option that also takes {@code auto}, saying so */
    private static UsageException orAuto(UsageException e) {
        return new UsageException(e.getMessage() + "; or auto (the default)");
    }

    private static List<Integer> sizeList(String option, String text, int max) throws UsageException {
        List<Integer> list = new ArrayList<>();
        for (String part : items(option, text)) {
            list.add((int) OptionValues.size(option, part, 1, max));
        }
        return distinct(option, list);
    }

    private static List<Integer> countList(String option, String text, int max) throws UsageException {
        List<Integer> list = new ArrayList<>();
        for (String part : items(option, text)) {
            list.add((int) count(option, part, 1, max));
        }
        return distinct(option, list);
    }

    private static List<Variant> variantList(String option, String text) throws UsageException {
        List<Variant> list = new ArrayList<>();
        for (String part : items(option, text)) {
            Variant v = Variant.byLabel(OptionValues.keyword(part)).orElseThrow(() -> new UsageException(option + ": unknown variant '"
                    + part + "' (variants: " + Variant.labels() + ")"));
            list.add(v);
        }
        return distinct(option, list);
    }

    private static <T> List<T> distinct(String option, List<T> list) throws UsageException {
        java.util.Set<T> seen = new LinkedHashSet<>();
        for (T item : list) {
            if (!seen.add(item)) {
                // as the command line writes them: a variant's label, not its Java constant
                java.util.function.Function<Object, String> text = v -> v instanceof Variant variant ? variant.label()
                        : String.valueOf(v);
                throw new UsageException(option + ": the list " + list.stream().map(text).toList() + " names "
                        + text.apply(item) + " twice");
            }
        }
        return List.copyOf(list);
    }
}
