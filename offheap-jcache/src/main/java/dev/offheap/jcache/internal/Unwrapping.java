package dev.offheap.jcache.internal;

import java.util.Objects;

/**
 * The one way this package's JCache objects answer {@code unwrap(Class)} to themselves, so that they all
 * check the type and word the failure the same way.
 *
 * <p>Threading: stateless; safe from any thread.
 */
final class Unwrapping {
    private Unwrapping() {
    }

    /**
     * @param self the object being unwrapped
     * @param type the class the caller asks for
     * @param what what {@code self} is, for the message ("a cache entry")
     * @param <T> the class asked for
     * @return {@code self} as {@code type}
     * @throws NullPointerException if {@code type} is null
     * @throws IllegalArgumentException if {@code self} is not an instance of {@code type}
     */
    static <T> T unwrap(Object self, Class<T> type, String what) {
        Objects.requireNonNull(type, "type");
        if (type.isInstance(self)) {
            return type.cast(self);
        }
        throw new IllegalArgumentException(what + " cannot be unwrapped to " + type.getName());
    }
}
