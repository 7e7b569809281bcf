package dev.offheap.cache;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * An operation on many entries that fails for a reason of its own throws that failure with the removal
 * listener's Errors suppressed in it, as {@link RemovalListener} says, also when the failure is a checked
 * exception a user's function throws undeclared (Kotlin, Lombok's @SneakyThrows): the listener's Errors,
 * kept until the operation ended, are not lost.
 */
class ABulkOperationFailingWithAnUndeclaredCheckedExceptionKeepsTheListenersErrorsTest {

    /** The listener's own failure. */
    private static final class ListenerFailure extends Error {
        private static final long serialVersionUID = 1L;

        ListenerFailure(String message) {
            super(message);
        }
    }

    private final List<String> told = Collections.synchronizedList(new ArrayList<>());

    private OffHeapCache<String, String> cache() {
        return OffHeapCache.builder(Serializer.strings(), Serializer.strings()).capacity(1 << 20)
                .removalListener((k, v, cause) -> {
                    told.add(k);
                    throw new ListenerFailure("the listener failed at " + k);
                }).build();
    }

    @Test
    void aFilterThrowingACheckedExceptionUndeclaredCarriesTheListenersErrorAsSuppressed() {
        try (OffHeapCache<String, String> cache = cache()) {
            cache.put("a", "1");
            cache.put("b", "2");
            AtomicInteger calls = new AtomicInteger();

            // the first key the filter sees is removed (the listener throws), the second fails the filter
            assertThatThrownBy(() -> cache.asMap().keySet().removeIf(key -> {
                if (calls.getAndIncrement() == 0) {
                    return true;
                }
                return sneakyThrow(new IOException("the filter failed at " + key));
            })).isInstanceOf(IOException.class)
                    .satisfies(e -> assertThat(e.getSuppressed()).as("the listener's Error")
                            .singleElement().isInstanceOf(ListenerFailure.class));

            assertThat(told).as("the removal the listener was told of").hasSize(1);
        }
    }

    @Test
    void aReplaceAllFunctionThrowingACheckedExceptionUndeclaredCarriesTheListenersErrorAsSuppressed() {
        try (OffHeapCache<String, String> cache = cache()) {
            cache.put("a", "1");
            cache.put("b", "2");
            AtomicInteger calls = new AtomicInteger();

            // the first value is replaced (told REPLACED; the listener throws), the second fails the function
            assertThatThrownBy(() -> cache.asMap().replaceAll((key, value) -> {
                if (calls.getAndIncrement() == 0) {
                    return value + "'";
                }
                return sneakyThrow(new IOException("the function failed at " + key));
            })).isInstanceOf(IOException.class)
                    .satisfies(e -> assertThat(e.getSuppressed()).as("the listener's Error")
                            .singleElement().isInstanceOf(ListenerFailure.class));
        }
    }

    @SuppressWarnings("unchecked")
    private static <T extends Throwable, R> R sneakyThrow(Throwable t) throws T {
        throw (T) t;
    }
}
