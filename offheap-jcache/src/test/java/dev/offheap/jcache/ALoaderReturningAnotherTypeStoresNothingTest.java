package dev.offheap.jcache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.Serial;
import java.io.Serializable;
import java.math.BigInteger;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import javax.cache.Cache;
import javax.cache.configuration.Factory;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.integration.CacheLoader;
import javax.cache.integration.CacheLoaderException;
import javax.cache.integration.CompletionListenerFuture;
import javax.cache.processor.EntryProcessorException;
import org.junit.jupiter.api.Test;

/**
 * A cache loader written against raw types can return keys and values of other types than the cache's
 * configured ones. The cache stored them as they came: with a Java-serialized value type every later get of
 * the key threw a {@code ClassCastException} (and with read-through the loader was never asked again, the
 * bad entry being present), and a key of another type showed up in the cache's iteration. Now such a load
 * fails as a loader failure, a {@code CacheLoaderException} whose cause is a {@code ClassCastException}
 * naming both types, and stores nothing.
 */
class ALoaderReturningAnotherTypeStoresNothingTest extends JCacheTestBase {

    /** Loads the text "text" for every key; for loadAll, also an Integer key where {@link #withIntegerKey}. */
    @SuppressWarnings("rawtypes")
    static final class TextLoader implements CacheLoader, Serializable {
        @Serial
        private static final long serialVersionUID = 1L;
        private final boolean withIntegerKey;

        TextLoader(boolean withIntegerKey) {
            this.withIntegerKey = withIntegerKey;
        }

        @Override
        public Object load(Object key) {
            return "text";
        }

        @Override
        @SuppressWarnings("unchecked")
        public Map loadAll(Iterable keys) {
            Map loaded = new HashMap();
            if (withIntegerKey) {
                loaded.put(42, BigInteger.ONE);
            } else {
                for (Object key : keys) {
                    loaded.put(key, "text");
                }
            }
            return loaded;
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"}) // the loader's types are not the cache's: that is the point
    private Cache<String, BigInteger> cacheLoadingWith(String name, TextLoader loader) {
        OffHeapConfiguration<String, BigInteger> configuration = small(String.class, BigInteger.class);
        configuration.setReadThrough(true);
        configuration.setCacheLoaderFactory((Factory) FactoryBuilder.factoryOf(loader));
        return manager.createCache(name, configuration);
    }

    @Test
    void aReadThroughGetFailsAndStoresNothing() {
        Cache<String, BigInteger> cache = cacheLoadingWith("get", new TextLoader(false));

        assertThatThrownBy(() -> cache.get("k")).isInstanceOf(CacheLoaderException.class)
                .cause().isInstanceOf(ClassCastException.class)
                .hasMessageContaining(BigInteger.class.getName()).hasMessageContaining(String.class.getName());
        assertThat(cache.containsKey("k")).isFalse();
    }

    @Test
    void aReadThroughGetAllFailsAndStoresNothing() {
        Cache<String, BigInteger> cache = cacheLoadingWith("getAll", new TextLoader(false));

        assertThatThrownBy(() -> cache.getAll(Set.of("a", "b"))).isInstanceOf(CacheLoaderException.class)
                .cause().isInstanceOf(ClassCastException.class);
        assertThat(cache.containsKey("a")).isFalse();
        assertThat(cache.containsKey("b")).isFalse();
    }

    @Test
    void aLoadThroughAnEntryProcessorFailsAndStoresNothing() {
        Cache<String, BigInteger> cache = cacheLoadingWith("invoke", new TextLoader(false));

        assertThatThrownBy(() -> cache.invoke("k", (entry, arguments) -> entry.getValue()))
                .isInstanceOf(EntryProcessorException.class)
                .cause().isInstanceOf(CacheLoaderException.class)
                .cause().isInstanceOf(ClassCastException.class);
        assertThat(cache.containsKey("k")).isFalse();
    }

    @Test
    void loadAllReportsAValueOfAnotherTypeAndStoresNothing() throws Exception {
        Cache<String, BigInteger> cache = cacheLoadingWith("loadAll", new TextLoader(false));
        CompletionListenerFuture done = new CompletionListenerFuture();

        cache.loadAll(Set.of("a"), true, done);

        assertThatThrownBy(() -> done.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(CacheLoaderException.class)
                .cause().isInstanceOf(ClassCastException.class);
        assertThat(cache.containsKey("a")).isFalse();
    }

    @Test
    void loadAllReportsAKeyOfAnotherTypeAndStoresNothing() throws Exception {
        Cache<String, BigInteger> cache = cacheLoadingWith("loadAllKeys", new TextLoader(true));
        CompletionListenerFuture done = new CompletionListenerFuture();

        cache.loadAll(Set.of("a"), true, done);

        assertThatThrownBy(() -> done.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(CacheLoaderException.class)
                .cause().isInstanceOf(ClassCastException.class).hasMessageContaining(Integer.class.getName());
        assertThat(cache.iterator().hasNext()).isFalse();
    }
}
