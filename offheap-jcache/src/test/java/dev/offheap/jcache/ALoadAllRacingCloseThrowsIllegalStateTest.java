package dev.offheap.jcache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.Serial;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import javax.cache.Cache;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.integration.CacheLoader;
import javax.cache.integration.CompletionListenerFuture;
import org.junit.jupiter.api.Test;

/**
 * A {@code loadAll} that found its cache open, and whose cache another thread then closed before the load
 * was handed to the cache's load thread, throws {@link IllegalStateException}, as JCache says a closed
 * cache's {@code loadAll} does. It threw the load executor's {@code RejectedExecutionException}.
 *
 * <p>The close is forced into that window through user code {@code loadAll} runs there: its copy of the
 * caller's key set.
 */
class ALoadAllRacingCloseThrowsIllegalStateTest extends JCacheTestBase {

    /** Loads nothing. */
    public static final class NoLoader implements CacheLoader<String, String>, java.io.Serializable {
        @Serial
        private static final long serialVersionUID = 1L;

        @Override
        public String load(String key) {
            return null;
        }

        @Override
        public Map<String, String> loadAll(Iterable<? extends String> keys) {
            return Map.of();
        }
    }

    /** The one key "k"; its copy into an array ({@code new ArrayList<>(set)}) has another thread close the cache. */
    private static final class ClosingOnCopy extends AbstractSet<String> {
        private final Cache<String, String> cache;

        ClosingOnCopy(Cache<String, String> cache) {
            this.cache = cache;
        }

        @Override
        public Iterator<String> iterator() {
            return List.of("k").iterator();
        }

        @Override
        public int size() {
            return 1;
        }

        @Override
        public Object[] toArray() {
            Thread closer = new Thread(cache::close, "closer");
            closer.start();
            try {
                closer.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return new Object[] {"k"};
        }
    }

    @Test
    void aLoadAllWhoseCacheClosesBeforeItsLoadIsQueuedThrowsIllegalState() {
        OffHeapConfiguration<String, String> configuration = small(String.class, String.class);
        configuration.setCacheLoaderFactory(FactoryBuilder.factoryOf(NoLoader.class));
        Cache<String, String> cache = manager.createCache("loading", configuration);
        CompletionListenerFuture future = new CompletionListenerFuture();

        assertThatThrownBy(() -> cache.loadAll(new ClosingOnCopy(cache), false, future))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        assertThat(cache.isClosed()).isTrue();
    }
}
