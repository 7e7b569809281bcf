package dev.offheap.jcache;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.Serial;
import java.io.Serializable;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.cache.Cache;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.integration.CacheLoader;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A write of a key made while a read-through load of it runs wins over the load, whichever write it is and
 * whatever it finds: the loaded value, read from the source before the write, reaches the caller of the
 * get but is not stored. A removal or a conditional write that found the key absent ({@code remove(key)},
 * {@code getAndRemove}, {@code remove(key, value)}, {@code replace}, {@code getAndReplace}, an entry
 * processor's {@code remove()}, {@code removeAll(keys)}) counted no change of the key, so the load stored
 * its value afterwards: with write-through, a {@code remove(key)} deleted the key from the source, and
 * the value read before the delete came back into the cache.
 */
class AWriteOfAKeyWhileItsReadThroughLoadRunsWinsTest extends JCacheTestBase {
    static volatile CountDownLatch loading;
    static volatile CountDownLatch release;

    /** Loads "loaded", waiting for {@link #release} once it has said it is loading. */
    public static final class BlockingLoader implements CacheLoader<String, String>, Serializable {
        @Serial
        private static final long serialVersionUID = 1L;

        @Override
        public String load(String key) {
            loading.countDown();
            WritesWhileALoadRuns.await(release);
            return "loaded";
        }

        @Override
        public Map<String, String> loadAll(Iterable<? extends String> keys) {
            Map<String, String> values = new HashMap<>();
            keys.forEach(key -> values.put(key, load(key)));
            return values;
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"put", "remove(key)", "getAndRemove", "remove(key, value)", "replace(key, value)",
            "replace(key, old, new)", "getAndReplace", "an entry processor's remove", "removeAll(keys)", "clear"})
    void theLoadedValueReachesTheGetButIsNotStored(String write) throws Exception {
        loading = new CountDownLatch(1);
        release = new CountDownLatch(1);
        OffHeapConfiguration<String, String> configuration = small(String.class, String.class);
        configuration.setReadThrough(true).setCacheLoaderFactory(FactoryBuilder.factoryOf(BlockingLoader.class));
        Cache<String, String> cache = manager.createCache("racing", configuration);

        CompletableFuture<String> get = CompletableFuture.supplyAsync(() -> cache.get("k"), Thread::startVirtualThread);
        WritesWhileALoadRuns.await(loading);
        WritesWhileALoadRuns.write(cache, write);
        release.countDown();

        assertThat(get.get(10, TimeUnit.SECONDS)).as("what the get returns").isEqualTo("loaded");
        if (write.equals("put")) {
            assertThat(cache.get("k")).isEqualTo("w");
        } else {
            assertThat(cache.containsKey("k")).as("the key after the load").isFalse();
        }
    }
}
