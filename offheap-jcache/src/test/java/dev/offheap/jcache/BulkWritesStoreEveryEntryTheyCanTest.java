package dev.offheap.jcache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.offheap.cache.SerializationException;
import dev.offheap.cache.ValueTooLargeException;

import java.io.Serial;
import java.io.Serializable;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import javax.cache.Cache;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.configuration.MutableCacheEntryListenerConfiguration;
import javax.cache.event.CacheEntryCreatedListener;
import javax.cache.event.CacheEntryEvent;
import javax.cache.event.CacheEntryUpdatedListener;
import javax.cache.integration.CacheLoader;
import javax.cache.integration.CacheWriter;
import javax.cache.integration.CacheWriterException;
import javax.cache.integration.CompletionListenerFuture;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

/**
 * A bulk write that meets a value the store cannot hold (over the entry limit, refused by the value
 * serializer) stores every other entry, with its event and its count, and then throws the failure: the
 * first in the order of the entries, later ones suppressed in it. {@code putAll}, a read-through
 * {@code getAll} and {@code loadAll} stopped at the first such value, and the entries after it were not
 * stored (though a cache writer had written them all). Where the writer's {@code writeAll} failed too, the
 * entries it wrote are those stored, as JCache says, and its failure is suppressed in the store's.
 */
class BulkWritesStoreEveryEntryTheyCanTest extends JCacheTestBase {
    /** Over the entry limit of a {@link #SMALL} cache, a sixteenth of it. */
    private static final String TOO_LARGE = "x".repeat((int) (SMALL / 16) + 1);

    /** Every created and updated event, as "key=value TYPE". */
    private final List<String> events = Collections.synchronizedList(new ArrayList<>());

    private final class Recorder implements CacheEntryCreatedListener<String, Object>,
            CacheEntryUpdatedListener<String, Object> {
        @Override
        public void onCreated(Iterable<CacheEntryEvent<? extends String, ? extends Object>> created) {
            record(created);
        }

        @Override
        public void onUpdated(Iterable<CacheEntryEvent<? extends String, ? extends Object>> updated) {
            record(updated);
        }

        private void record(Iterable<CacheEntryEvent<? extends String, ? extends Object>> some) {
            for (CacheEntryEvent<? extends String, ? extends Object> event : some) {
                events.add(event.getKey() + "=" + event.getValue() + " " + event.getEventType());
            }
        }
    }

    /** Gives, for any keys, the values of {@link #mixed()}. */
    private static final class MixedLoader implements CacheLoader<String, Object>, Serializable {
        @Serial
        private static final long serialVersionUID = 1L;

        @Override
        public Object load(String key) {
            return mixed().get(key);
        }

        @Override
        public Map<String, Object> loadAll(Iterable<? extends String> keys) {
            return mixed();
        }
    }

    /** Writes every entry but the one of key "unwritten", then fails, as JCache's writeAll says to. */
    private static final class PartlyWriter implements CacheWriter<String, Object>, Serializable {
        @Serial
        private static final long serialVersionUID = 1L;

        @Override
        public void write(Cache.Entry<? extends String, ? extends Object> entry) {
        }

        @Override
        public void writeAll(Collection<Cache.Entry<? extends String, ? extends Object>> entries) {
            for (Iterator<Cache.Entry<? extends String, ? extends Object>> it = entries.iterator(); it.hasNext(); ) {
                if (!it.next().getKey().equals("unwritten")) {
                    it.remove();
                }
            }
            throw new CacheWriterException("could not write the entry of key 'unwritten'");
        }

        @Override
        public void delete(Object key) {
        }

        @Override
        public void deleteAll(Collection<?> keys) {
            keys.clear();
        }
    }

    /** In this order: a, big (over the limit), b, unwritable (refused by Java serialization), c. */
    private static Map<String, Object> mixed() {
        Map<String, Object> entries = new LinkedHashMap<>();
        entries.put("a", "value of a");
        entries.put("big", TOO_LARGE);
        entries.put("b", "value of b");
        entries.put("unwritable", new FailingSerializables.Unwritable());
        entries.put("c", "value of c");
        return entries;
    }

    private OffHeapConfiguration<String, Object> configuration() {
        OffHeapConfiguration<String, Object> configuration = small(String.class, Object.class);
        configuration.setStatisticsEnabled(true);
        configuration.addCacheEntryListenerConfiguration(new MutableCacheEntryListenerConfiguration<>(
                new FactoryBuilder.SingletonFactory<>(new Recorder()), null, false, true));
        return configuration;
    }

    private long statistic(Cache<?, ?> cache, String attribute) throws Exception {
        ObjectName statistics = new ObjectName("javax.cache:type=CacheStatistics,CacheManager="
                + manager.getURI().toString().replaceAll("[,:=\n\"*?]", ".") + ",Cache=" + cache.getName());
        return ((Number) ManagementFactory.getPlatformMBeanServer().getAttribute(statistics, attribute)).longValue();
    }

    /** The first failure is the value over the limit, the serializer's refusal suppressed in it. */
    private static void assertTheFirstFailureWithTheLaterSuppressed(Throwable failure) {
        assertThat(failure).isInstanceOf(ValueTooLargeException.class);
        assertThat(failure.getSuppressed()).anySatisfy(
                later -> assertThat(later).isInstanceOf(SerializationException.class));
    }

    private void assertEveryStorableValueStored(Cache<String, Object> cache) {
        assertThat(cache.get("a")).isEqualTo("value of a");
        assertThat(cache.get("b")).isEqualTo("value of b");
        assertThat(cache.get("c")).isEqualTo("value of c");
        assertThat(cache.containsKey("big")).isFalse();
        assertThat(cache.containsKey("unwritable")).isFalse();
        assertThat(events).containsExactly("a=value of a CREATED", "b=value of b CREATED", "c=value of c CREATED");
    }

    @Test
    void putAllStoresEveryStorableEntryAndCountsItsPuts() throws Exception {
        Cache<String, Object> cache = manager.createCache("putAll", configuration());

        Throwable failure = catchThrowable(() -> cache.putAll(mixed()));

        assertTheFirstFailureWithTheLaterSuppressed(failure);
        assertEveryStorableValueStored(cache);
        assertThat(statistic(cache, "CachePuts")).isEqualTo(3);
    }

    @Test
    void putAllLeavesAValueTheStoreCannotHoldAsItWas() {
        Cache<String, Object> cache = manager.createCache("previous", configuration());
        cache.put("unwritable", "previous value");
        events.clear();

        catchThrowable(() -> cache.putAll(mixed()));

        assertThat(cache.get("unwritable")).isEqualTo("previous value");
        assertThat(events).doesNotContain("unwritable=previous value UPDATED").hasSize(3);
    }

    @Test
    void putAllWhoseWriterFailsStoresTheEntriesItWroteThatTheStoreCanHold() throws Exception {
        OffHeapConfiguration<String, Object> configuration = configuration();
        configuration.setWriteThrough(true).setCacheWriterFactory(FactoryBuilder.factoryOf(new PartlyWriter()));
        Cache<String, Object> cache = manager.createCache("writer", configuration);
        Map<String, Object> entries = mixed();
        entries.put("unwritten", "value of unwritten");

        Throwable failure = catchThrowable(() -> cache.putAll(entries));

        assertTheFirstFailureWithTheLaterSuppressed(failure);
        assertThat(failure.getSuppressed()).anySatisfy(
                writer -> assertThat(writer).isInstanceOf(CacheWriterException.class));
        assertEveryStorableValueStored(cache);
        assertThat(cache.containsKey("unwritten")).as("not written, so not stored").isFalse();
        assertThat(statistic(cache, "CachePuts")).isEqualTo(3);
    }

    @Test
    void putAllWhoseWriterFailsAloneThrowsItsFailureAfterStoringWhatItWrote() throws Exception {
        OffHeapConfiguration<String, Object> configuration = configuration();
        configuration.setWriteThrough(true).setCacheWriterFactory(FactoryBuilder.factoryOf(new PartlyWriter()));
        Cache<String, Object> cache = manager.createCache("writerAlone", configuration);

        Throwable failure = catchThrowable(() -> cache.putAll(Map.of("a", "value of a", "unwritten", "value")));

        assertThat(failure).isInstanceOf(CacheWriterException.class);
        assertThat(cache.get("a")).isEqualTo("value of a");
        assertThat(cache.containsKey("unwritten")).isFalse();
        assertThat(events).containsExactly("a=value of a CREATED");
        assertThat(statistic(cache, "CachePuts")).isEqualTo(1);
    }

    @Test
    void aReadThroughGetAllStoresEveryStorableValueItLoaded() throws Exception {
        OffHeapConfiguration<String, Object> configuration = configuration();
        configuration.setReadThrough(true).setCacheLoaderFactory(FactoryBuilder.factoryOf(new MixedLoader()));
        Cache<String, Object> cache = manager.createCache("getAll", configuration);

        Throwable failure = catchThrowable(() -> cache.getAll(new LinkedHashSet<>(mixed().keySet())));

        assertTheFirstFailureWithTheLaterSuppressed(failure);
        assertThat(statistic(cache, "CacheMisses")).isEqualTo(5);
        assertEveryStorableValueStored(cache);
    }

    @Test
    void loadAllStoresEveryStorableValueAndTellsTheFirstFailure() throws Exception {
        OffHeapConfiguration<String, Object> configuration = configuration();
        configuration.setCacheLoaderFactory(FactoryBuilder.factoryOf(new MixedLoader()));
        Cache<String, Object> cache = manager.createCache("loadAll", configuration);
        CompletionListenerFuture done = new CompletionListenerFuture();

        cache.loadAll(new LinkedHashSet<>(mixed().keySet()), false, done);

        Throwable failure = catchThrowable(() -> done.get(20, TimeUnit.SECONDS));
        assertThat(failure).isInstanceOf(ExecutionException.class);
        assertTheFirstFailureWithTheLaterSuppressed(failure.getCause());
        assertEveryStorableValueStored(cache);
    }
}
