package dev.offheap.jcache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.Serial;
import java.io.Serializable;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import javax.cache.Cache;
import javax.cache.CacheException;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.integration.CacheLoader;
import javax.cache.integration.CompletionListenerFuture;
import org.junit.jupiter.api.Test;

/**
 * An {@link Error} a JCache loader throws is no loader exception to wrap: the read-through calls that ran
 * the loader ({@code get}, {@code getAll}, {@code invoke}'s and {@code invokeAll}'s {@code getValue}) throw it as it is, as the
 * off-heap cache's own loads do for the caller that ran the loader, and {@code loadAll}, whose loader runs
 * on a thread of the cache, tells its completion listener with a {@link CacheException} whose cause it is.
 * Nothing is stored, and the loader is asked again next time.
 */
class ALoaderErrorReachesEveryReadThroughCallerAsItIsTest extends JCacheTestBase {

    /** The loader's own failure. */
    static final class LoaderFailure extends Error {
        @Serial
        private static final long serialVersionUID = 1L;

        LoaderFailure() {
            super("the loader's own failure");
        }
    }

    /** Throws a {@link LoaderFailure} for every load. */
    static final class FailingLoader implements CacheLoader<String, String>, Serializable {
        @Serial
        private static final long serialVersionUID = 1L;

        @Override
        public String load(String key) {
            throw new LoaderFailure();
        }

        @Override
        public Map<String, String> loadAll(Iterable<? extends String> keys) {
            throw new LoaderFailure();
        }
    }

    @Test
    void everyReadThroughPathThrowsTheLoadersErrorAndLoadAllTellsItWrapped() throws Exception {
        OffHeapConfiguration<String, String> configuration = small(String.class, String.class);
        configuration.setReadThrough(true);
        configuration.setCacheLoaderFactory(FactoryBuilder.factoryOf(new FailingLoader()));
        Cache<String, String> cache = manager.createCache("failing", configuration);

        assertThat(catchThrowable(() -> cache.get("k"))).isInstanceOf(LoaderFailure.class);
        assertThat(catchThrowable(() -> cache.getAll(Set.of("a", "b")))).isInstanceOf(LoaderFailure.class);
        assertThat(catchThrowable(() -> cache.invoke("k", (entry, arguments) -> entry.getValue())))
                .isInstanceOf(LoaderFailure.class);
        assertThat(catchThrowable(() -> cache.invokeAll(Set.of("a"), (entry, arguments) -> entry.getValue())))
                .isInstanceOf(LoaderFailure.class);

        CompletionListenerFuture done = new CompletionListenerFuture();
        cache.loadAll(Set.of("a", "b"), false, done);
        Throwable told = catchThrowable(() -> done.get(20, TimeUnit.SECONDS));
        assertThat(told).isInstanceOf(ExecutionException.class);
        assertThat(told.getCause()).isInstanceOf(CacheException.class).hasCauseInstanceOf(LoaderFailure.class);

        assertThat(cache.iterator().hasNext()).isFalse();
        assertThat(catchThrowable(() -> cache.get("k"))).as("asked again").isInstanceOf(LoaderFailure.class);
    }
}
