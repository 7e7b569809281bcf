package dev.offheap.cache.internal;

import dev.offheap.cache.CacheLoader;
import dev.offheap.cache.EvictionPolicy;
import dev.offheap.cache.RemovalListener;
import dev.offheap.cache.Serializer;
import dev.offheap.memory.Budget;
import dev.offheap.memory.MemoryManager;

import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.LongSupplier;

/**
 * What {@link dev.offheap.cache.CacheBuilder} collected, checked option by option already.
 *
 * @param maxEntryBytes    -1 for the default
 * @param concurrencyLevel 0 for the default
 * @param expireAfterWrite null for none
 * @param expireAfterAccess null for none
 * @param removalListener  null for none
 * @param loader           null for none
 * @param budget           null for none
 * @param memoryManager    null for none
 * @param cleanUpInterval  null for no scheduled clean-up
 * @param cleanUpExecutor  null for the shared daemon thread
 * @param <K>              key type
 * @param <V>              value type
 */
public record CacheConfig<K, V>(Serializer<K> keySerializer, Serializer<V> valueSerializer, long capacityBytes,
                                long maxEntryBytes, EvictionPolicy evictionPolicy, Duration expireAfterWrite,
                                Duration expireAfterAccess, int concurrencyLevel, boolean recordStats,
                                RemovalListener<? super K, ? super V> removalListener,
                                CacheLoader<? super K, V> loader, Budget budget, MemoryManager memoryManager,
                                String name, LongSupplier nanoClock, Duration cleanUpInterval,
                                ScheduledExecutorService cleanUpExecutor) {
}
