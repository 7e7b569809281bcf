package dev.offheap.jcache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import javax.cache.Cache;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.configuration.MutableCacheEntryListenerConfiguration;
import javax.cache.event.CacheEntryEvent;
import javax.cache.event.CacheEntryRemovedListener;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

/**
 * A {@code removeAll} whose keys hold one the store refuses (longer than a key may be) removes every other
 * key, with its event and its removal counted, and then throws that failure. It stopped at that key: the
 * keys after it stayed cached, though a cache writer's {@code deleteAll} had deleted them all, and the
 * removals made before it were not counted.
 */
class ARemoveAllGoesOnPastAKeyItCannotRemoveTest extends JCacheTestBase {
    /** Longer than the 65,535 bytes a key may have. */
    private static final String TOO_LONG = "k".repeat(70_000);

    private final List<String> removed = Collections.synchronizedList(new ArrayList<>());

    private final class Recorder implements CacheEntryRemovedListener<String, String> {
        @Override
        public void onRemoved(Iterable<CacheEntryEvent<? extends String, ? extends String>> events) {
            for (CacheEntryEvent<? extends String, ? extends String> event : events) {
                removed.add(event.getKey());
            }
        }
    }

    private long removals(Cache<?, ?> cache) throws Exception {
        ObjectName statistics = new ObjectName("javax.cache:type=CacheStatistics,CacheManager="
                + manager.getURI().toString().replaceAll("[,:=\n\"*?]", ".") + ",Cache=" + cache.getName());
        return ((Number) ManagementFactory.getPlatformMBeanServer().getAttribute(statistics, "CacheRemovals"))
                .longValue();
    }

    @Test
    void theKeysAfterOneTheStoreRefusesAreRemovedAndEveryRemovalCounted() throws Exception {
        OffHeapConfiguration<String, String> configuration = small(String.class, String.class);
        configuration.setStatisticsEnabled(true);
        configuration.setWriteThrough(true).setCacheWriterFactory(FactoryBuilder.factoryOf(new WriteOnlyWriter() {
            @java.io.Serial
            private static final long serialVersionUID = 1L;

            @Override
            public void write(Cache.Entry<? extends String, ? extends String> entry) {
            }
        }));
        configuration.addCacheEntryListenerConfiguration(new MutableCacheEntryListenerConfiguration<>(
                new FactoryBuilder.SingletonFactory<>(new Recorder()), null, false, true));
        Cache<String, String> cache = manager.createCache("removeAll", configuration);
        cache.put("a", "value of a");
        cache.put("c", "value of c");

        Throwable failure = catchThrowable(() -> cache.removeAll(new LinkedHashSet<>(List.of("a", TOO_LONG, "c"))));

        assertThat(failure).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("longer than");
        assertThat(cache.containsKey("a")).isFalse();
        assertThat(cache.containsKey("c")).as("deleted by the writer, so removed").isFalse();
        assertThat(removed).containsExactly("a", "c");
        assertThat(removals(cache)).isEqualTo(2);
    }
}
