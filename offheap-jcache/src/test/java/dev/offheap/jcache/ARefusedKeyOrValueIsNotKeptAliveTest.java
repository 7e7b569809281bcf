package dev.offheap.jcache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.offheap.cache.ValueTooLargeException;

import java.io.Serial;
import java.io.Serializable;
import java.lang.ref.WeakReference;
import java.util.Arrays;
import javax.cache.Cache;
import org.junit.jupiter.api.Test;

/**
 * A key or value that the off-heap store refuses (a value over the largest entry, a key over the longest
 * key) is not kept reachable by the cache once the call has thrown.
 *
 * <p>Java serialization keeps the bytes it made for a value's {@code serializedSize} in a thread-local for
 * the {@code write} that follows. A value the store refused on that size was never written: the value and
 * its bytes stayed reachable from the calling thread, one per thread and cache, for as long as the thread
 * lived without another call of that cache (a pool thread: for good, and past the cache's close). A
 * refused value is typically the largest the application makes.
 */
class ARefusedKeyOrValueIsNotKeptAliveTest extends JCacheTestBase {

    /** A value or key of {@code bytes} bytes, serialized by Java serialization. */
    static final class Blob implements Serializable {
        @Serial
        private static final long serialVersionUID = 1L;
        private final byte[] bytes;

        Blob(int size) {
            bytes = new byte[size];
            Arrays.fill(bytes, (byte) 7);
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Blob that && Arrays.equals(bytes, that.bytes);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(bytes);
        }
    }

    /** @return whether the object {@code reference} refers to was collected, after a few collections */
    private static boolean collected(WeakReference<?> reference) throws InterruptedException {
        for (int i = 0; i < 20 && reference.get() != null; i++) {
            System.gc();
            Thread.sleep(10);
        }
        return reference.get() == null;
    }

    // Each of these makes its object and drops it before returning: no frame of the test holds it.

    private static WeakReference<Blob> putATooLargeValue(Cache<String, Blob> cache) {
        Blob value = new Blob(6 << 20); // over the 256 KiB per entry of a 4 MiB cache
        assertThatThrownBy(() -> cache.put("k", value)).isInstanceOf(ValueTooLargeException.class);
        return new WeakReference<>(value);
    }

    private static WeakReference<Blob> putATooLongKey(Cache<Blob, String> cache) {
        Blob key = new Blob(100_000); // over the 65,535 bytes a key may have
        assertThatThrownBy(() -> cache.put(key, "v")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("longer than");
        return new WeakReference<>(key);
    }

    private static WeakReference<Blob> lookUpATooLongKey(Cache<Blob, String> cache) {
        Blob key = new Blob(100_000);
        assertThatThrownBy(() -> cache.containsKey(key)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> cache.get(key)).isInstanceOf(IllegalArgumentException.class);
        return new WeakReference<>(key);
    }

    @Test
    void aValueTooLargeForTheCacheIsNotKeptAfterThePutThrew() throws InterruptedException {
        Cache<String, Blob> cache = manager.createCache("values", small(String.class, Blob.class));
        WeakReference<Blob> refused = putATooLargeValue(cache);

        assertThat(collected(refused)).as("the refused 6 MiB value was collected").isTrue();
        cache.put("small", new Blob(100)); // the cache still works
        assertThat(cache.get("small")).isEqualTo(new Blob(100));
    }

    @Test
    void aKeyTooLongForTheCacheIsNotKeptAfterTheCallThrew() throws InterruptedException {
        Cache<Blob, String> cache = manager.createCache("keys", small(Blob.class, String.class));
        WeakReference<Blob> put = putATooLongKey(cache);
        WeakReference<Blob> lookedUp = lookUpATooLongKey(cache);

        assertThat(collected(put)).as("the key of the refused put was collected").isTrue();
        assertThat(collected(lookedUp)).as("the key of the refused look-ups was collected").isTrue();
    }
}
