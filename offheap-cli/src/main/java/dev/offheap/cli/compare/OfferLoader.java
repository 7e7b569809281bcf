package dev.offheap.cli.compare;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * How a cache loads the description of an offer it does not hold: as a string, the way an on-heap cache
 * needs it, or written straight into memory the caller provides, the way an off-heap cache can take it
 * without a copy on the heap.
 *
 * <p>Threading: implementations may be called from many threads at once.
 */
@FunctionalInterface
public interface OfferLoader {
    /**
     * @param id the offer id
     * @return its description
     * @throws RuntimeException if the offer cannot be loaded
     */
    String load(long id);

    /**
     * Writes the description of an offer into {@code target}. This default loads the string and copies its
     * bytes; a store that can produce the bytes directly (as a JDBC driver streams a large column) overrides it.
     *
     * @param id the offer id
     * @param target exactly the description's size in bytes (Latin-1: one byte per character)
     * @throws IllegalStateException if the description does not have the target's size
     * @throws RuntimeException if the offer cannot be loaded
     */
    default void loadInto(long id, MemorySegment target) {
        String description = load(id);
        Offers.requireDescriptionSize(target, description.length());
        MemorySegment.copy(description.getBytes(StandardCharsets.ISO_8859_1), 0, target, ValueLayout.JAVA_BYTE, 0,
                description.length());
    }
}
