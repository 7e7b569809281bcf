package dev.offheap.jcache;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.cache.Cache;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.integration.CacheLoader;
import org.junit.jupiter.api.Test;

/**
 * A read-through {@code getAll} takes the values its loader's {@code loadAll} returns for the asked keys
 * when the loader made its keys anew: keys equal by content (arrays), as the cache compares keys, count as
 * the asked ones. Matched with {@code Map.get} (identity for arrays), every such value was dropped: not
 * returned, not cached, though {@code get} of each key loads it.
 */
class GetAllReadThroughMatchesLoadedKeysByContentTest extends JCacheTestBase {

    /** A loader that builds its result as one reading a database would: with keys of its own. */
    public static final class FreshKeysLoader implements CacheLoader<byte[], String> {
        @Override
        public String load(byte[] key) {
            return "v" + key[0];
        }

        @Override
        public Map<byte[], String> loadAll(Iterable<? extends byte[]> keys) {
            Map<byte[], String> loaded = new LinkedHashMap<>();
            for (byte[] key : keys) {
                loaded.put(key.clone(), load(key));
            }
            return loaded;
        }
    }

    @Test
    void getAllReturnsAndCachesWhatLoadAllReturnsForArrayKeysItMadeAnew() {
        OffHeapConfiguration<byte[], String> configuration = small(byte[].class, String.class);
        configuration.setReadThrough(true).setCacheLoaderFactory(FactoryBuilder.factoryOf(FreshKeysLoader.class));
        Cache<byte[], String> cache = manager.createCache("bytes", configuration);
        byte[] one = {1};
        byte[] two = {2};

        Map<byte[], String> all = cache.getAll(Set.of(one, two));

        List<String> values = new ArrayList<>();
        values.add(all.get(one));
        values.add(all.get(two));
        assertThat(values).containsExactly("v1", "v2");
        assertThat(cache.containsKey(new byte[] {1})).as("cached").isTrue();
        assertThat(cache.containsKey(new byte[] {2})).as("cached").isTrue();
    }
}
