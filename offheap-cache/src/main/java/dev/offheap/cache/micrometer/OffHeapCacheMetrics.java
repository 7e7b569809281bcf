package dev.offheap.cache.micrometer;

import dev.offheap.cache.CacheStats;
import dev.offheap.cache.OffHeapCache;
import dev.offheap.cache.internal.OffHeapCacheImpl;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;

import java.lang.ref.WeakReference;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

/**
 * Binds a cache's statistics to a Micrometer registry, with the names Micrometer's own cache binders use
 * ({@code cache.gets{result=hit|miss}}, {@code cache.evictions}, {@code cache.size}, ...) plus the cache's
 * bytes: {@code cache.eviction.weight}, {@code cache.weight}, {@code cache.memory.used} and
 * {@code cache.memory.capacity} (all in bytes). Every meter carries the tag {@code cache=<name>}. A cache built
 * with {@link dev.offheap.cache.CacheBuilder#recordStats recordStats(false)} counts nothing: it gets the gauges
 * only ({@code cache.size}, {@code cache.weight}, {@code cache.memory.used}, {@code cache.memory.capacity}), as
 * Micrometer's Caffeine binder registers only {@code cache.size} for a cache that records no statistics, since
 * counters that read 0 for ever would show a cache that is never used; the binder logs a warning then.
 *
 * <p>Meters read the cache when the registry polls them. After the cache is closed the gauges report
 * {@code NaN}, and the counters and the load timer keep the values they last read: they are cumulative, and
 * one that fell to {@code NaN} or 0 would read as a reset (or a gap) to every backend that rates it. The
 * meters hold the cache weakly, as Micrometer's own cache binders do: binding a cache does not keep it alive,
 * and once it is collected (a cache that is never closed gives its memory back then, see
 * {@link OffHeapCache#close()}) the gauges report {@code NaN} as well and the counters keep their last values. The binder holds it weakly too, so keeping the binder does not keep the cache
 * either; binding a binder whose cache was collected registers nothing. Thread-safe.
 *
 * <pre>{@code
 * new OffHeapCacheMetrics(cache, "offers", Tags.empty()).bindTo(registry);
 * }</pre>
 *
 * <p>Micrometer is an optional dependency of offheap-cache: an application that uses this class brings
 * micrometer-core itself and, on the module path, {@code requires micrometer.core}; one that does not use it
 * needs no Micrometer at all, to compile or to run.
 */
// Micrometer's types in this API come from a module read "requires static", not "transitive" (module-info says
// why): an application that binds metrics reads micrometer.core itself, as it needs to for its MeterRegistry
@SuppressWarnings("exports")
public final class OffHeapCacheMetrics implements MeterBinder {
    private static final System.Logger LOG = System.getLogger(OffHeapCacheMetrics.class.getName());

    /**
     * Weak, as the meters' references are: an application that keeps its binders (a container's list of
     * {@code MeterBinder}s) and drops a cache without closing it would otherwise keep the cache reachable,
     * and the cleaner that gives an unclosed cache's native memory back would never run.
     */
    private final WeakReference<OffHeapCache<?, ?>> cacheRef;
    private final String cacheName;
    private final Tags tags;

    /**
     * @param cache     the cache to observe
     * @param cacheName the value of the {@code cache} tag
     * @param tags      more tags for every meter
     * @throws NullPointerException if an argument is null
     */
    public OffHeapCacheMetrics(OffHeapCache<?, ?> cache, String cacheName, Iterable<Tag> tags) {
        this.cacheRef = new WeakReference<>(Objects.requireNonNull(cache, "cache"));
        this.cacheName = Objects.requireNonNull(cacheName, "cacheName");
        this.tags = Tags.concat(Objects.requireNonNull(tags, "tags"), "cache", cacheName);
    }

    /**
     * Registers the meters; none once the cache has been collected.
     *
     * @param registry where to register them
     * @throws NullPointerException if {@code registry} is null
     */
    @Override
    public void bindTo(MeterRegistry registry) {
        Objects.requireNonNull(registry, "registry");
        OffHeapCache<?, ?> cache = cacheRef.get();
        if (cache == null) {
            return; // collected: its meters would only ever report NaN
        }
        if (cache instanceof OffHeapCacheImpl<?, ?> impl && !impl.recordsStats()) {
            LOG.log(System.Logger.Level.WARNING, "cache '" + cacheName + "' does not record statistics: only its"
                    + " gauges are registered (build it with recordStats(true) for the counters)");
        } else {
            bindCounters(registry, cache);
        }
        gauge(registry, cache, "cache.size", "entries now", null, c -> c.size());
        gauge(registry, cache, "cache.weight", "bytes the entries use: keys, values, headers", "bytes",
                c -> c.weightedSize());
        gauge(registry, cache, "cache.memory.used", "bytes in use, tables included", "bytes",
                c -> c.stats().usedBytes());
        gauge(registry, cache, "cache.memory.capacity", "the capacity in bytes", "bytes", OffHeapCache::capacityBytes);
    }

    private void bindCounters(MeterRegistry registry, OffHeapCache<?, ?> cache) {
        counter(registry, cache, "cache.gets", "lookups that found an entry", Tags.of("result", "hit"), null,
                CacheStats::hitCount);
        counter(registry, cache, "cache.gets", "lookups that found no entry", Tags.of("result", "miss"), null,
                CacheStats::missCount);
        counter(registry, cache, "cache.evictions", "entries evicted for size", Tags.empty(), null,
                CacheStats::evictionCount);
        counter(registry, cache, "cache.eviction.weight", "bytes of the entries evicted for size", Tags.empty(),
                "bytes", CacheStats::evictionBytes);
        counter(registry, cache, "cache.expirations", "entries removed because they expired", Tags.empty(), null,
                CacheStats::expirationCount);
        counter(registry, cache, "cache.load", "loads that gave their callers a value", Tags.of("result", "success"), null,
                CacheStats::loadSuccessCount);
        counter(registry, cache, "cache.load", "loads that failed: the loader threw or returned null, or its value could not be stored", Tags.of("result", "failure"), null,
                CacheStats::loadFailureCount);
        AtomicLong lastLoadCount = new AtomicLong();
        AtomicLong lastLoadNanos = new AtomicLong();
        FunctionTimer.builder("cache.load.duration", cache,
                        c -> (long) cumulative(c, s -> s.loadSuccessCount() + s.loadFailureCount(), lastLoadCount),
                        c -> cumulative(c, CacheStats::totalLoadTimeNanos, lastLoadNanos), TimeUnit.NANOSECONDS)
                .tags(tags).description("time spent loading").register(registry);
    }

    private void counter(MeterRegistry registry, OffHeapCache<?, ?> cache, String name, String description,
                         Tags extra, String unit, ToLongFunction<CacheStats> count) {
        AtomicLong last = new AtomicLong();
        FunctionCounter.builder(name, cache, c -> cumulative(c, count, last)).tags(tags).tags(extra)
                .description(description).baseUnit(unit).register(registry);
    }

    private void gauge(MeterRegistry registry, OffHeapCache<?, ?> cache, String name, String description, String unit,
                       ToDoubleFunction<OffHeapCache<?, ?>> value) {
        Gauge.builder(name, cache, c -> c.isClosed() ? Double.NaN : value.applyAsDouble(c)).tags(tags)
                .description(description).baseUnit(unit).register(registry);
    }

    /**
     * A cumulative value: the statistic now, or once the cache is closed the highest value read before. Never
     * lower than one read before, so two polls racing each other cannot make it step back either.
     */
    private static double cumulative(OffHeapCache<?, ?> cache, ToLongFunction<CacheStats> field, AtomicLong last) {
        double now = stat(cache, field);
        return Double.isNaN(now) ? last.get() : last.accumulateAndGet((long) now, Math::max);
    }

    private static double stat(OffHeapCache<?, ?> cache, ToLongFunction<CacheStats> field) {
        if (cache.isClosed()) {
            return Double.NaN;
        }
        try {
            return field.applyAsLong(cache.stats());
        } catch (IllegalStateException closedMeanwhile) {
            return Double.NaN;
        }
    }
}
