package dev.offheap.jcache;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.Serial;
import java.io.Serializable;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.cache.Cache;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.integration.CacheLoader;
import javax.cache.integration.CompletionListenerFuture;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A write of a key made while {@code loadAll}'s loader runs wins over the load, as it does over a
 * read-through get's: the value loaded (read from the source before the write) is not stored for that key,
 * whichever write it is and whatever it finds. {@code loadAll} stored whatever its loader returned: with
 * {@code replaceExistingValues} it wrote an older value over a newer put, and without it, it put back a
 * key another thread removed. The other keys it loads are stored, also one whose change count is kept in
 * the same stripe as the written key's.
 */
class AWriteOfAKeyWhileLoadAllLoadsItWinsTest extends JCacheTestBase {
    static volatile CountDownLatch loading;
    static volatile CountDownLatch release;

    /** Loads "loaded" for every key, waiting for {@link #release} once it has said it is loading. */
    public static final class BlockingLoader implements CacheLoader<String, String>, Serializable {
        @Serial
        private static final long serialVersionUID = 1L;

        @Override
        public String load(String key) {
            return loadAll(List.of(key)).get(key);
        }

        @Override
        public Map<String, String> loadAll(Iterable<? extends String> keys) {
            loading.countDown();
            WritesWhileALoadRuns.await(release);
            Map<String, String> values = new HashMap<>();
            keys.forEach(key -> values.put(key, "loaded"));
            return values;
        }
    }

    static Stream<Arguments> writes() {
        return Stream.of("put", "putIfAbsent", "putAll", "getAndPut", "remove(key)", "getAndRemove",
                        "remove(key, value)", "replace(key, value)", "replace(key, old, new)", "getAndReplace",
                        "an entry processor's setValue", "an entry processor's remove", "removeAll(keys)", "clear")
                .flatMap(write -> Stream.of(Arguments.of(write, true), Arguments.of(write, false)));
    }

    @ParameterizedTest(name = "{0}, replaceExistingValues {1}")
    @MethodSource("writes")
    void theWrittenKeyKeepsWhatTheWriteLeftAndTheOthersAreLoaded(String write, boolean replaceExistingValues)
            throws Exception {
        loading = new CountDownLatch(1);
        release = new CountDownLatch(1);
        OffHeapConfiguration<String, String> configuration = small(String.class, String.class);
        configuration.setCacheLoaderFactory(FactoryBuilder.factoryOf(BlockingLoader.class));
        Cache<String, String> cache = manager.createCache("racing", configuration);
        String neighbour = keyOfTheSameStripeAs("k");

        CompletionListenerFuture done = new CompletionListenerFuture();
        cache.loadAll(Set.of("k", neighbour, "other"), replaceExistingValues, done);
        WritesWhileALoadRuns.await(loading);
        WritesWhileALoadRuns.write(cache, write);
        release.countDown();
        done.get(10, TimeUnit.SECONDS);

        boolean wroteAValue = WritesWhileALoadRuns.WRITING_A_VALUE.contains(write);
        assertThat(cache.get("k")).as("the written key after the load").isEqualTo(wroteAValue ? "w" : null);
        if (!write.equals("clear")) {
            assertThat(cache.get(neighbour)).as("a key of the same stripe").isEqualTo("loaded");
            assertThat(cache.get("other")).as("another key").isEqualTo("loaded");
        }
    }

    @ParameterizedTest(name = "replaceExistingValues {0}")
    @org.junit.jupiter.params.provider.ValueSource(booleans = {true, false})
    void aWriteOfAnotherKeyOfTheSameStripeLetsEveryKeyLoad(boolean replaceExistingValues) throws Exception {
        loading = new CountDownLatch(1);
        release = new CountDownLatch(1);
        OffHeapConfiguration<String, String> configuration = small(String.class, String.class);
        configuration.setCacheLoaderFactory(FactoryBuilder.factoryOf(BlockingLoader.class));
        Cache<String, String> cache = manager.createCache("racing", configuration);
        String neighbour = keyOfTheSameStripeAs("k");

        CompletionListenerFuture done = new CompletionListenerFuture();
        cache.loadAll(Set.of("k", "other"), replaceExistingValues, done);
        WritesWhileALoadRuns.await(loading);
        cache.put(neighbour, "w");
        cache.remove(neighbour);
        release.countDown();
        done.get(10, TimeUnit.SECONDS);

        assertThat(cache.get("k")).isEqualTo("loaded");
        assertThat(cache.get("other")).isEqualTo("loaded");
        assertThat(cache.containsKey(neighbour)).isFalse();
    }

    /**
     * @return a key other than {@code key} whose changes the cache counts in the same stripe (its change
     *         counts are kept per 1,024 stripes of keys, by hash: this repeats that hash)
     */
    private static String keyOfTheSameStripeAs(String key) {
        for (int i = 0; ; i++) {
            String candidate = "n" + i;
            if (stripe(candidate) == stripe(key)) {
                return candidate;
            }
        }
    }

    private static int stripe(String key) {
        int h = key.hashCode() * 0x9E3779B9;
        return (h ^ (h >>> 16)) & 1023;
    }
}
