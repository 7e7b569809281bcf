package dev.offheap.jcache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.offheap.cache.SerializationException;
import dev.offheap.cache.Serializer;
import dev.offheap.cache.ValueTooLargeException;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.cache.Cache;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.configuration.MutableCacheEntryListenerConfiguration;
import javax.cache.event.CacheEntryEvent;
import javax.cache.event.CacheEntryRemovedListener;
import javax.cache.event.CacheEntryUpdatedListener;
import javax.cache.integration.CacheWriter;
import javax.cache.processor.EntryProcessorException;
import javax.cache.processor.EntryProcessorResult;
import org.junit.jupiter.api.Test;

/**
 * With write-through, whatever the store will refuse is refused before the cache writer is called: a value
 * over the entry limit, a value its serializer cannot write, an old value the operation has to read (to
 * return it, or for a listener) that cannot be deserialized. The writer was called first, so the external
 * store held the new value (or had lost the entry) while the cache kept the old one.
 */
class AWriteTheStoreRefusesNeverReachesTheWriterTest extends JCacheTestBase {
    /** Over the entry limit of a {@link #SMALL} cache, a sixteenth of it. */
    private static final String TOO_LARGE = "x".repeat((int) (SMALL / 16) + 1);

    /** What the writer was asked to do, as "write k=v", "writeAll [k, ...]", "delete k", "deleteAll [k, ...]". */
    private final List<String> written = Collections.synchronizedList(new ArrayList<>());

    private final class RecordingWriter implements CacheWriter<String, Object> {
        @Override
        public void write(Cache.Entry<? extends String, ? extends Object> entry) {
            written.add("write " + entry.getKey() + "=" + shortly(entry.getValue()));
        }

        @Override
        public void writeAll(Collection<Cache.Entry<? extends String, ? extends Object>> entries) {
            List<String> keys = new ArrayList<>();
            for (Cache.Entry<? extends String, ? extends Object> entry : entries) {
                keys.add(entry.getKey());
            }
            written.add("writeAll " + keys);
            entries.clear();
        }

        @Override
        public void delete(Object key) {
            written.add("delete " + key);
        }

        @Override
        public void deleteAll(Collection<?> keys) {
            written.add("deleteAll " + keys);
            keys.clear();
        }
    }

    /** @return the value as text, one longer than 20 characters as its length */
    private static String shortly(Object value) {
        String text = String.valueOf(value);
        return text.length() > 20 ? text.length() + " characters" : text;
    }

    /** Listens for updates and removals, so that an update or a remove has to read the old value. */
    private static final class OldValueListener implements CacheEntryUpdatedListener<String, Object>,
            CacheEntryRemovedListener<String, Object> {
        @Override
        public void onUpdated(Iterable<CacheEntryEvent<? extends String, ? extends Object>> events) {
        }

        @Override
        public void onRemoved(Iterable<CacheEntryEvent<? extends String, ? extends Object>> events) {
        }
    }

    /** Strings as UTF-8, but its write throws for the value "poison" (its size it gives). */
    private static final class PoisonRefusingSerializer implements Serializer<Object> {
        @Override
        public int serializedSize(Object value) {
            return Serializer.strings().serializedSize((String) value);
        }

        @Override
        public void write(Object value, MemorySegment target) {
            if (value.equals("poison")) {
                throw new IllegalStateException("this serializer cannot write poison");
            }
            Serializer.strings().write((String) value, target);
        }

        @Override
        public Object read(MemorySegment source) {
            return Serializer.strings().read(source);
        }
    }

    private Cache<String, Object> cache(String name, boolean withListener) {
        OffHeapConfiguration<String, Object> configuration = small(String.class, Object.class);
        configuration.setWriteThrough(true)
                .setCacheWriterFactory(new FactoryBuilder.SingletonFactory<>(new RecordingWriter()));
        if (withListener) {
            configuration.addCacheEntryListenerConfiguration(new MutableCacheEntryListenerConfiguration<>(
                    new FactoryBuilder.SingletonFactory<>(new OldValueListener()), null, true, true));
        }
        return manager.createCache(name, configuration);
    }

    /** @return a cache whose entry of key "k" holds "old", with the writer's record cleared */
    private Cache<String, Object> cacheWithOld(String name) {
        Cache<String, Object> cache = cache(name, false);
        cache.put("k", "old");
        written.clear();
        return cache;
    }

    /** @return a cache (with a listener where asked) whose entry of key "k" cannot be deserialized */
    private Cache<String, Object> cacheWithUnreadable(String name, boolean withListener) {
        Cache<String, Object> cache = cache(name, withListener);
        cache.put("k", new FailingSerializables.Unreadable());
        written.clear();
        return cache;
    }

    @Test
    void aPutOfAValueOverTheLimitIsRefusedBeforeTheWriterWritesIt() {
        Cache<String, Object> cache = cacheWithOld("put");

        assertThat(catchThrowable(() -> cache.put("k", TOO_LARGE))).isInstanceOf(ValueTooLargeException.class)
                .as("the limit a JCache user can change: the capacity, not a builder setting out of reach")
                .hasMessageContaining("under JCache, a sixteenth of the cache's capacity");

        assertThat(written).isEmpty();
        assertThat(cache.get("k")).isEqualTo("old");
    }

    @Test
    void aPutOfAValueItsSerializerRefusesIsRefusedBeforeTheWriterWritesIt() {
        Cache<String, Object> cache = cacheWithOld("unwritable");

        Throwable failure = catchThrowable(() -> cache.put("k", new FailingSerializables.Unwritable()));

        assertThat(failure).isInstanceOf(SerializationException.class);
        assertThat(written).isEmpty();
        assertThat(cache.get("k")).isEqualTo("old");
    }

    @Test
    void aPutOfAValueWhoseSerializerThrowsInItsWriteIsRefusedBeforeTheWriterWritesIt() {
        OffHeapConfiguration<String, Object> configuration = small(String.class, Object.class);
        configuration.setValueSerializerFactory(PoisonRefusingSerializer::new);
        configuration.setWriteThrough(true)
                .setCacheWriterFactory(new FactoryBuilder.SingletonFactory<>(new RecordingWriter()));
        Cache<String, Object> cache = manager.createCache("poison", configuration);
        cache.put("k", "old");
        written.clear();

        assertThat(catchThrowable(() -> cache.put("k", "poison"))).isInstanceOf(SerializationException.class);

        assertThat(written).isEmpty();
        assertThat(cache.get("k")).isEqualTo("old");
        cache.put("k", "new");
        assertThat(written).containsExactly("write k=new");
        assertThat(cache.get("k")).isEqualTo("new");
    }

    @Test
    void everySingleEntryWriteOfAValueOverTheLimitIsRefusedBeforeTheWriter() {
        Cache<String, Object> cache = cacheWithOld("single");

        assertThat(catchThrowable(() -> cache.getAndPut("k", TOO_LARGE))).isInstanceOf(ValueTooLargeException.class);
        assertThat(catchThrowable(() -> cache.putIfAbsent("absent", TOO_LARGE)))
                .isInstanceOf(ValueTooLargeException.class);
        assertThat(catchThrowable(() -> cache.replace("k", TOO_LARGE))).isInstanceOf(ValueTooLargeException.class);
        assertThat(catchThrowable(() -> cache.replace("k", "old", TOO_LARGE)))
                .isInstanceOf(ValueTooLargeException.class);
        assertThat(catchThrowable(() -> cache.getAndReplace("k", TOO_LARGE)))
                .isInstanceOf(ValueTooLargeException.class);
        assertThat(catchThrowable(() -> cache.invoke("k", (entry, arguments) -> {
            entry.setValue(TOO_LARGE);
            return null;
        }))).isInstanceOf(ValueTooLargeException.class);
        assertThat(catchThrowable(() -> cache.invoke("absent", (entry, arguments) -> {
            entry.setValue(TOO_LARGE);
            return null;
        }))).isInstanceOf(ValueTooLargeException.class);
        Map<String, EntryProcessorResult<Object>> results = cache.invokeAll(Set.of("k"), (entry, arguments) -> {
            entry.setValue(TOO_LARGE);
            return null;
        });
        assertThat(catchThrowable(() -> results.get("k").get())).isInstanceOf(EntryProcessorException.class)
                .hasCauseInstanceOf(ValueTooLargeException.class);

        assertThat(written).isEmpty();
        assertThat(cache.get("k")).isEqualTo("old");
        assertThat(cache.containsKey("absent")).isFalse();
    }

    @Test
    void aPutAllWritesThroughOnlyTheEntriesTheStoreCanHold() {
        Cache<String, Object> cache = cacheWithOld("putAll");
        Map<String, Object> entries = new LinkedHashMap<>();
        entries.put("a", "value of a");
        entries.put("k", TOO_LARGE);
        entries.put("b", "value of b");
        entries.put("unwritable", new FailingSerializables.Unwritable());
        entries.put("c", "value of c");

        Throwable failure = catchThrowable(() -> cache.putAll(entries));

        assertThat(failure).isInstanceOf(ValueTooLargeException.class);
        assertThat(failure.getSuppressed()).anySatisfy(
                later -> assertThat(later).isInstanceOf(SerializationException.class));
        assertThat(written).containsExactly("writeAll [a, b, c]");
        assertThat(cache.get("k")).isEqualTo("old");
        assertThat(cache.containsKey("unwritable")).isFalse();
        assertThat(cache.getAll(Set.of("a", "b", "c"))).containsOnlyKeys("a", "b", "c");
    }

    @Test
    void aPutAllWhoseEveryEntryIsRefusedCallsNoWriter() {
        Cache<String, Object> cache = cacheWithOld("putAllRefused");

        Throwable failure = catchThrowable(() -> cache.putAll(Map.of("k", TOO_LARGE)));

        assertThat(failure).isInstanceOf(ValueTooLargeException.class);
        assertThat(written).isEmpty();
        assertThat(cache.get("k")).isEqualTo("old");
    }

    @Test
    void aGetAndPutOrGetAndReplaceWhoseOldValueCannotBeReadCallsNoWriter() {
        Cache<String, Object> cache = cacheWithUnreadable("getAndPut", false);

        assertThat(catchThrowable(() -> cache.getAndPut("k", "new"))).isNotNull();
        assertThat(catchThrowable(() -> cache.getAndReplace("k", "new"))).isNotNull();

        assertThat(written).isEmpty();
        assertThat(cache.containsKey("k")).isTrue();
    }

    @Test
    void aGetAndRemoveWhoseOldValueCannotBeReadDeletesNothing() {
        Cache<String, Object> cache = cacheWithUnreadable("getAndRemove", false);

        assertThat(catchThrowable(() -> cache.getAndRemove("k"))).isNotNull();

        assertThat(written).isEmpty();
        assertThat(cache.containsKey("k")).isTrue();
    }

    @Test
    void anUpdateOrRemoveWhoseListenerNeedsAnOldValueThatCannotBeReadCallsNoWriter() {
        Cache<String, Object> cache = cacheWithUnreadable("listened", true);

        assertThat(catchThrowable(() -> cache.put("k", "new"))).isNotNull();
        assertThat(catchThrowable(() -> cache.replace("k", "new"))).isNotNull();
        assertThat(catchThrowable(() -> cache.remove("k"))).isNotNull();
        assertThat(catchThrowable(() -> cache.invoke("k", (entry, arguments) -> {
            entry.setValue("new");
            return null;
        }))).isNotNull();
        assertThat(catchThrowable(() -> cache.invoke("k", (entry, arguments) -> {
            entry.remove();
            return null;
        }))).isNotNull();

        assertThat(written).isEmpty();
        assertThat(cache.containsKey("k")).isTrue();
    }

    @Test
    void aWriteTheStoreCanHoldStillReachesTheWriter() {
        Cache<String, Object> cache = cacheWithOld("fine");

        assertThat(cache.getAndPut("k", "new")).isEqualTo("old");
        cache.put("j", "value of j");

        assertThat(written).containsExactly("write k=new", "write j=value of j");
        assertThat(cache.get("k")).isEqualTo("new");
        assertThat(cache.get("j")).isEqualTo("value of j");
    }
}
