package dev.offheap.jcache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.offheap.cache.OffHeapCache;
import java.io.Serial;
import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import javax.cache.Cache;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.integration.CacheLoader;
import javax.cache.integration.CacheLoaderException;
import javax.cache.integration.CacheWriter;
import javax.cache.integration.CacheWriterException;
import javax.cache.processor.EntryProcessorException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A cache writer, an entry processor and a read-through loader that call back into their own cache, for the
 * key they work on and for other keys, among them keys of the same segment of the store. Writers and
 * entry processors (and the loads an entry processor triggers) run under the lock of the key's segment:
 * such a call fails at once with an {@link IllegalStateException} naming the cause, wrapped as JCache
 * wraps what those callbacks throw, and changes nothing; no call waits for ever. A read-through load of a
 * get runs outside the lock, so its loader may use the cache, but not ask for the key it is loading.
 */
class CallbacksCallingTheirOwnCacheTest extends JCacheTestBase {
    private static final Duration LIMIT = Duration.ofSeconds(20);

    /** What the writer or loader does with the cache on its next call; static, as their factories make them. */
    static volatile Consumer<Cache<String, String>> callback = cache -> { };
    static volatile Cache<String, String> target;

    @AfterEach
    void forgetCallback() {
        callback = cache -> { };
        target = null;
    }

    public static final class CallingWriter implements CacheWriter<String, String>, Serializable {
        @Serial
        private static final long serialVersionUID = 1L;

        @Override
        public void write(Cache.Entry<? extends String, ? extends String> entry) {
            callback.accept(target);
        }

        @Override
        public void writeAll(Collection<Cache.Entry<? extends String, ? extends String>> entries) {
            entries.forEach(this::write);
            entries.clear();
        }

        @Override
        public void delete(Object key) {
            callback.accept(target);
        }

        @Override
        public void deleteAll(Collection<?> keys) {
            keys.forEach(this::delete);
            keys.clear();
        }
    }

    public static final class CallingLoader implements CacheLoader<String, String>, Serializable {
        @Serial
        private static final long serialVersionUID = 1L;

        @Override
        public String load(String key) {
            callback.accept(target);
            return "loaded-" + key;
        }

        @Override
        public Map<String, String> loadAll(Iterable<? extends String> keys) {
            Map<String, String> loaded = new java.util.HashMap<>();
            for (String key : keys) {
                loaded.put(key, load(key));
            }
            return loaded;
        }
    }

    private Cache<String, String> withWriter() {
        OffHeapConfiguration<String, String> configuration = small(String.class, String.class);
        configuration.setWriteThrough(true).setCacheWriterFactory(FactoryBuilder.factoryOf(CallingWriter.class));
        target = manager.createCache("writer", configuration);
        return target;
    }

    private Cache<String, String> withLoader() {
        OffHeapConfiguration<String, String> configuration = small(String.class, String.class);
        configuration.setReadThrough(true).setCacheLoaderFactory(FactoryBuilder.factoryOf(CallingLoader.class));
        configuration.setStatisticsEnabled(true);
        target = manager.createCache("loader", configuration);
        return target;
    }

    /**
     * Keys besides {@code key}: 64, so that some of them share the store's segment of {@code key} (it has a
     * few segments: 4 at this capacity, at most one per 2 x capacity / 16).
     */
    private static List<String> otherKeys() {
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            keys.add("other-" + i);
        }
        return keys;
    }

    /** Every way back into the cache, for the key and the others, each expected to fail at once. */
    private static List<Function<Cache<String, String>, Object>> callsBack(String key, List<String> others) {
        List<Function<Cache<String, String>, Object>> calls = new ArrayList<>();
        for (String k : concat(key, others)) {
            calls.add(c -> c.get(k));
            calls.add(c -> {
                c.put(k, "x");
                return null;
            });
            calls.add(c -> c.remove(k));
            calls.add(c -> c.containsKey(k));
            calls.add(c -> c.invoke(k, (entry, arguments) -> entry.getValue()));
        }
        calls.add(c -> c.getAll(java.util.Set.copyOf(concat(key, others))));
        calls.add(c -> {
            c.removeAll();
            return null;
        });
        calls.add(c -> {
            c.clear();
            return null;
        });
        calls.add(c -> c.iterator().hasNext());
        return calls;
    }

    private static List<String> concat(String key, List<String> others) {
        List<String> all = new ArrayList<>(others);
        all.add(0, key);
        return all;
    }

    @Test
    void aWriterCallingItsCacheFailsAtOnceAndChangesNothing() {
        Cache<String, String> cache = withWriter();
        cache.put("k", "v");
        List<String> others = otherKeys();
        assertTimeoutPreemptively(LIMIT, () -> {
            for (Function<Cache<String, String>, Object> call : callsBack("k", others)) {
                callback = c -> call.apply(c);
                assertThatThrownBy(() -> cache.put("k", "new")).isInstanceOf(CacheWriterException.class)
                        .hasRootCauseInstanceOf(IllegalStateException.class)
                        .hasStackTraceContaining("called from its own");
                assertThatThrownBy(() -> cache.remove("k")).isInstanceOf(CacheWriterException.class)
                        .hasStackTraceContaining("called from its own");
            }
        });
        callback = c -> { };
        assertThat(cache.get("k")).isEqualTo("v");
        for (String other : others) {
            assertThat(cache.containsKey(other)).isFalse();
        }
        cache.put("k", "w"); // the segment's lock was given back every time
        assertThat(cache.get("k")).isEqualTo("w");
    }

    @Test
    void anEntryProcessorCallingItsCacheFailsAtOnceAndChangesNothing() {
        Cache<String, String> cache = manager.createCache("processor", small(String.class, String.class));
        cache.put("k", "v");
        List<String> others = otherKeys();
        assertTimeoutPreemptively(LIMIT, () -> {
            for (Function<Cache<String, String>, Object> call : callsBack("k", others)) {
                assertThatThrownBy(() -> cache.invoke("k", (entry, arguments) -> {
                    entry.setValue("changed");
                    return call.apply(cache);
                })).isInstanceOf(EntryProcessorException.class)
                        .hasRootCauseInstanceOf(IllegalStateException.class)
                        .hasStackTraceContaining("called from its own");
            }
        });
        assertThat(cache.get("k")).isEqualTo("v");
        assertThat(cache.containsKey("other-0")).isFalse();
    }

    /**
     * Through the store itself ({@code unwrap(OffHeapCache.class)}), which JCache's mark does not guard: the
     * store refuses every call from inside its compute, for any segment, with an IllegalStateException.
     */
    @Test
    void anEntryProcessorCallingTheStoreFailsAtOnce() {
        Cache<String, String> cache = manager.createCache("processor-store", small(String.class, String.class));
        cache.put("k", "v");
        @SuppressWarnings("unchecked")
        OffHeapCache<String, Object> store = cache.unwrap(OffHeapCache.class);
        assertTimeoutPreemptively(LIMIT, () -> {
            for (String key : concat("k", otherKeys())) {
                assertThatThrownBy(() -> cache.invoke("k", (entry, arguments) -> store.containsKey(key)))
                        .isInstanceOf(EntryProcessorException.class)
                        .hasRootCauseInstanceOf(IllegalStateException.class)
                        .hasStackTraceContaining("inside compute's function");
                assertThatThrownBy(() -> cache.invoke("k", (entry, arguments) -> {
                    store.invalidate(key);
                    return null;
                })).isInstanceOf(EntryProcessorException.class)
                        .hasStackTraceContaining("inside compute's function");
            }
        });
        assertThat(cache.get("k")).isEqualTo("v");
    }

    /** The load an entry processor's getValue triggers runs under the lock too, and so fails the same way. */
    @Test
    void aLoaderCalledFromAnEntryProcessorCallingItsCacheFailsAtOnce() {
        Cache<String, String> cache = withLoader();
        List<String> others = otherKeys();
        assertTimeoutPreemptively(LIMIT, () -> {
            for (Function<Cache<String, String>, Object> call : callsBack("k", others)) {
                callback = c -> call.apply(c);
                assertThatThrownBy(() -> cache.invoke("k", (entry, arguments) -> entry.getValue()))
                        .isInstanceOf(EntryProcessorException.class)
                        .hasRootCauseInstanceOf(IllegalStateException.class)
                        .hasStackTraceContaining("called from its own");
            }
        });
        callback = c -> { };
        assertThat(cache.containsKey("k")).isFalse();
        assertThat(cache.get("k")).isEqualTo("loaded-k");
    }

    /** A get's read-through load runs outside the lock: its loader may use the cache for other keys. */
    @Test
    void aReadThroughLoaderMayUseItsCacheForOtherKeys() {
        Cache<String, String> cache = withLoader();
        List<String> others = otherKeys();
        callback = c -> {
            for (String other : others) {
                c.put(other, "put-by-loader");
            }
        };
        assertThat(assertTimeoutPreemptively(LIMIT, () -> cache.get("k"))).isEqualTo("loaded-k");
        callback = c -> { };
        for (String other : others) {
            assertThat(cache.get(other)).isEqualTo("put-by-loader");
        }
        assertThat(cache.get("k")).isEqualTo("loaded-k");
    }

    /**
     * A loader that puts the key it loads: the put wins, as any write made while a load runs does (the
     * load's value may be older than it).
     */
    @Test
    void aReadThroughLoaderThatPutsItsOwnKeyLeavesThePut() {
        Cache<String, String> cache = withLoader();
        callback = c -> c.put("k", "put-by-loader");
        assertThat(assertTimeoutPreemptively(LIMIT, () -> cache.get("k"))).isEqualTo("loaded-k");
        callback = c -> { };
        assertThat(cache.get("k")).isEqualTo("put-by-loader");
    }

    /**
     * A loader that asks for the key it is loading would load it again, and again: the get fails at once
     * with a CacheLoaderException whose cause names the recursion, and the cache is usable after it.
     */
    @Test
    void aReadThroughLoaderAskingForItsOwnKeyFailsAtOnce() {
        Cache<String, String> cache = withLoader();
        callback = c -> c.get("k");
        assertTimeoutPreemptively(LIMIT, () -> assertThatThrownBy(() -> cache.get("k"))
                .isInstanceOf(CacheLoaderException.class)
                .hasRootCauseInstanceOf(IllegalStateException.class)
                .hasStackTraceContaining("loading"));
        callback = c -> { };
        assertThat(cache.get("k")).isEqualTo("loaded-k");
    }

    /** The same through getAll's loadAll, and through loadAll, whose completion listener hears of it. */
    @Test
    void aBulkLoaderAskingForAKeyItIsLoadingFailsAtOnce() throws Exception {
        Cache<String, String> cache = withLoader();
        callback = c -> c.get("k");
        assertTimeoutPreemptively(LIMIT, () -> assertThatThrownBy(() -> cache.getAll(java.util.Set.of("k", "j")))
                .isInstanceOf(CacheLoaderException.class)
                .hasRootCauseInstanceOf(IllegalStateException.class)
                .hasStackTraceContaining("while loading it"));
        javax.cache.integration.CompletionListenerFuture done = new javax.cache.integration.CompletionListenerFuture();
        cache.loadAll(java.util.Set.of("k"), true, done);
        assertThatThrownBy(() -> done.get(LIMIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS))
                .hasRootCauseInstanceOf(IllegalStateException.class)
                .hasStackTraceContaining("while loading it");
        callback = c -> { };
        assertThat(cache.getAll(java.util.Set.of("k", "j")))
                .isEqualTo(Map.of("k", "loaded-k", "j", "loaded-j"));
    }

    /**
     * A writer that closes its cache (close is no call JCache's mark refuses): the cache is closed, the
     * write that was under way fails with the closed cache's IllegalStateException, nothing waits.
     */
    @Test
    void aWriterClosingItsCacheFailsTheWriteAndClosesIt() {
        Cache<String, String> cache = withWriter();
        cache.put("k", "v");
        callback = Cache::close;
        assertTimeoutPreemptively(LIMIT, () -> assertThatThrownBy(() -> cache.put("k", "new"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed"));
        assertThat(cache.isClosed()).isTrue();
        assertThatThrownBy(() -> cache.get("k")).isInstanceOf(IllegalStateException.class);
    }
}
