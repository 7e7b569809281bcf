package dev.offheap.jcache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigInteger;
import javax.cache.Cache;
import javax.cache.processor.EntryProcessor;
import javax.cache.processor.EntryProcessorException;
import org.junit.jupiter.api.Test;

/**
 * An entry processor called through a raw {@code Cache} can hand {@code MutableEntry.setValue} a value of
 * another type than the cache's configured value type. The cache checks the types of the values its other
 * operations are given (a {@code ClassCastException}, as JCache's runtime type checks want), but took this
 * one as it was: a Java-serialized value type stored it, and every later get of the key threw a
 * {@code ClassCastException} (the entry was lost to its readers); a built-in one refused it deep in the store
 * with a {@code SerializationException} about its serializer.
 */
class AnEntryProcessorSettingAValueOfAnotherTypeStoresNothingTest extends JCacheTestBase {

    @SuppressWarnings({"unchecked", "rawtypes"}) // a raw cache, as code that lost the generic types has
    private static void setText(Cache<String, ?> cache, String key) {
        ((Cache) cache).invoke(key, (EntryProcessor) (entry, arguments) -> {
            entry.setValue("text");
            return null;
        });
    }

    @Test
    void theProcessorGetsAClassCastExceptionAndTheEntryKeepsItsValue() {
        Cache<String, BigInteger> cache = manager.createCache("numbers", small(String.class, BigInteger.class));
        cache.put("k", BigInteger.TEN);

        assertThatThrownBy(() -> setText(cache, "k")).isInstanceOf(EntryProcessorException.class)
                .cause().isInstanceOf(ClassCastException.class)
                .hasMessageContaining(BigInteger.class.getName()).hasMessageContaining(String.class.getName());
        assertThatThrownBy(() -> setText(cache, "absent")).isInstanceOf(EntryProcessorException.class)
                .cause().isInstanceOf(ClassCastException.class);

        assertThat(cache.get("k")).isEqualTo(BigInteger.TEN);
        assertThat(cache.containsKey("absent")).isFalse();
    }

    @Test
    void aBuiltInValueTypeIsCheckedTheSameWay() {
        Cache<String, Long> cache = manager.createCache("longs", small(String.class, Long.class));
        cache.put("k", 7L);

        assertThatThrownBy(() -> setText(cache, "k")).isInstanceOf(EntryProcessorException.class)
                .cause().isInstanceOf(ClassCastException.class).hasMessageContaining(Long.class.getName());
        assertThat(cache.get("k")).isEqualTo(7L);
    }
}
