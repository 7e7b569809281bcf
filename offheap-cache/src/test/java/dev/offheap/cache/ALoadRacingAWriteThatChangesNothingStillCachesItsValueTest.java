package dev.offheap.cache;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A write or removal that finds the key absent and so changes nothing (a conditional remove or replace, a
 * replace, a compute or computeIfPresent whose function gives null) while the key's load runs leaves the load
 * to store its value: there is no newer value for it to overwrite. Every such call marked the load as
 * superseded before it looked at the key, and the load's value, though it reached the load's caller, was
 * not cached: the next get missed and loaded again. An unconditional removal ({@code remove(key)},
 * {@code invalidate}) still keeps the load from storing, absent key or not: it says the source changed.
 */
class ALoadRacingAWriteThatChangesNothingStillCachesItsValueTest {

    private static final String LOADED = "read-from-the-source";

    /** Runs {@code change} while a load of "k" runs; returns what "k" holds once the load has ended. */
    private static String afterALoadRacing(String change) throws Exception {
        try (OffHeapCache<String, String> cache = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(1 << 20).build()) {
            CountDownLatch loading = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicReference<String> loaderGot = new AtomicReference<>();
            Thread loader = Thread.ofPlatform().daemon(true).start(() -> {
                try {
                    loaderGot.set(cache.get("k", k -> {
                        loading.countDown();
                        await(release);
                        return LOADED;
                    }));
                } catch (Throwable e) {
                    failure.set(e);
                }
            });
            await(loading);
            switch (change) {
                case "remove(key, value)" -> assertThat(cache.remove("k", "v")).isFalse();
                case "replace(key, value)" -> assertThat(cache.replace("k", "v")).isNull();
                case "replace(key, old, new)" -> assertThat(cache.replace("k", "v", "w")).isFalse();
                case "compute giving null" -> assertThat(cache.compute("k", (k, v) -> null)).isNull();
                case "the view's computeIfPresent" ->
                        assertThat(cache.asMap().computeIfPresent("k", (k, v) -> "w")).isNull();
                case "remove(key)" -> assertThat(cache.remove("k")).isNull();
                case "invalidate" -> cache.invalidate("k");
                default -> throw new IllegalArgumentException(change);
            }
            release.countDown();
            loader.join(10_000);
            assertThat(loader.isAlive()).isFalse();
            assertThat(failure.get()).isNull();
            assertThat(loaderGot.get()).as("the load's caller gets what it loaded").isEqualTo(LOADED);
            return cache.getIfPresent("k");
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(10, TimeUnit.SECONDS)) {
                throw new AssertionError("latch not reached in 10 s");
            }
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"remove(key, value)", "replace(key, value)", "replace(key, old, new)",
            "compute giving null", "the view's computeIfPresent"})
    void theLoadedValueIsCachedAfterAWriteThatFoundTheKeyAbsent(String change) throws Exception {
        assertThat(afterALoadRacing(change)).isEqualTo(LOADED);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"remove(key)", "invalidate"})
    void anUnconditionalRemovalOfTheAbsentKeyStillKeepsTheLoadFromStoring(String change) throws Exception {
        assertThat(afterALoadRacing(change)).isNull();
    }
}
