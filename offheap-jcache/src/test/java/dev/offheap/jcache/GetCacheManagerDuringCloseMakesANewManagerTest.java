package dev.offheap.jcache;

import static org.assertj.core.api.Assertions.assertThat;

import javax.cache.Cache;
import javax.cache.CacheManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code getCacheManager} never hands out a closed manager: one closed by another thread, whose close has
 * not yet taken it out of the provider's table, is replaced by a new one, as after the close. It returned
 * the closed manager, whose every use then threw {@code IllegalStateException}.
 *
 * <p>The test holds the provider's monitor, under which the closing manager takes itself out of the
 * table, so that the close stops in the window between marking the manager closed and leaving the table.
 */
class GetCacheManagerDuringCloseMakesANewManagerTest {
    private final OffHeapCachingProvider provider = new OffHeapCachingProvider();

    @AfterEach
    void closeProvider() {
        provider.close();
    }

    @Test
    void aManagerClosedByAnotherThreadIsNotHandedOut() throws InterruptedException {
        CacheManager first = provider.getCacheManager();
        Thread closer = new Thread(first::close, "closer");
        CacheManager second;
        synchronized (provider) {
            closer.start();
            // closed, and waiting for the provider's monitor to leave its table
            while (!first.isClosed() || closer.getState() != Thread.State.BLOCKED) {
                Thread.onSpinWait();
            }
            second = provider.getCacheManager();
        }
        closer.join();

        assertThat(second).isNotSameAs(first);
        assertThat(second.isClosed()).isFalse();
        Cache<String, String> cache = second.createCache("c", new OffHeapConfiguration<String, String>()
                .setCapacityBytes(JCacheTestBase.SMALL));
        assertThat(cache.isClosed()).isFalse();
        assertThat(provider.getCacheManager()).as("still the provider's after the first one's close ended")
                .isSameAs(second);
    }
}
