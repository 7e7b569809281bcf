package dev.offheap.jcache;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.cache.Cache;

/**
 * The writes that the tests of a write racing a load make on key "k" of a cache where it is absent, by name,
 * and the latch wait of their blocking loaders.
 */
final class WritesWhileALoadRuns {
    /** The writes that leave a value ("w") for the key; the others leave it absent. */
    static final Set<String> WRITING_A_VALUE = Set.of("put", "putIfAbsent", "putAll", "getAndPut",
            "an entry processor's setValue");

    private WritesWhileALoadRuns() {
    }

    /** Makes the write named {@code write} of key "k", absent from {@code cache}, asserting what it returns. */
    static void write(Cache<String, String> cache, String write) {
        switch (write) {
            case "put" -> cache.put("k", "w");
            case "putIfAbsent" -> assertThat(cache.putIfAbsent("k", "w")).isTrue();
            case "putAll" -> cache.putAll(Map.of("k", "w"));
            case "getAndPut" -> assertThat(cache.getAndPut("k", "w")).isNull();
            case "remove(key)" -> assertThat(cache.remove("k")).isFalse();
            case "getAndRemove" -> assertThat(cache.getAndRemove("k")).isNull();
            case "remove(key, value)" -> assertThat(cache.remove("k", "v")).isFalse();
            case "replace(key, value)" -> assertThat(cache.replace("k", "w")).isFalse();
            case "replace(key, old, new)" -> assertThat(cache.replace("k", "v", "w")).isFalse();
            case "getAndReplace" -> assertThat(cache.getAndReplace("k", "w")).isNull();
            case "an entry processor's setValue" -> cache.invoke("k", (entry, arguments) -> {
                entry.setValue("w");
                return null;
            });
            case "an entry processor's remove" -> cache.invoke("k", (entry, arguments) -> {
                entry.remove();
                return null;
            });
            case "removeAll(keys)" -> cache.removeAll(Set.of("k"));
            case "clear" -> cache.clear();
            default -> throw new IllegalArgumentException(write);
        }
    }

    /** Waits for {@code latch}, at most 10 s: a loader's wait, which must not hang a test. */
    static void await(CountDownLatch latch) {
        try {
            if (!latch.await(10, TimeUnit.SECONDS)) {
                throw new AssertionError("latch not reached in 10 s");
            }
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }
}
