package dev.offheap.cli.compare;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

/**
 * The offers of the seed's service, generated deterministically from their id: the same id always has
 * the same title, price and text, in every run and on every machine.
 *
 * <p>A description of {@code n} bytes is the offer's text (about {@value #TEXT_BYTES} bytes of words)
 * repeated until it has exactly {@code n} ASCII characters, so one byte per character in memory (a
 * compact Latin-1 string), on disk and in UTF-8. The store keeps only the text, so that a database for
 * tens of thousands of offers stays small whatever the value size.
 *
 * <p>Thread-safe: stateless.
 */
public final class Offers {
    /** Bytes of each offer's stored text. */
    public static final int TEXT_BYTES = 2048;

    private static final String[] WORDS = {
        "vintage", "camera", "lens", "bicycle", "frame", "carbon", "leather", "jacket", "wooden", "table",
        "ceramic", "vase", "original", "box", "warranty", "new", "used", "mint", "condition", "shipping",
        "free", "fast", "handmade", "cotton", "shirt", "steel", "watch", "battery", "charger", "cable",
        "premium", "quality", "size", "colour", "black", "white", "red", "blue", "green", "garden",
        "kitchen", "knife", "set", "book", "signed", "edition", "rare", "collector", "item", "sealed",
        "guitar", "strings", "amplifier", "speaker", "wireless", "phone", "case", "screen", "protector", "lamp",
        "desk", "chair", "sofa", "pillow"
    };

    private Offers() {
    }

    /**
     * @param id the offer id, 0 or more
     * @return the offer's title, a few words
     * @throws IllegalArgumentException if {@code id} is negative
     */
    public static String title(long id) {
        SplittableRandom random = random(id);
        return "Offer " + id + ": " + WORDS[random.nextInt(WORDS.length)] + " " + WORDS[random.nextInt(WORDS.length)];
    }

    /**
     * @param id the offer id, 0 or more
     * @return the offer's price in cents, 100 to 1,000,000
     * @throws IllegalArgumentException if {@code id} is negative
     */
    public static long priceCents(long id) {
        return 100 + random(id).split().nextLong(999_901);
    }

    /**
     * @param id the offer id, 0 or more
     * @return the offer's text, exactly {@value #TEXT_BYTES} ASCII characters
     * @throws IllegalArgumentException if {@code id} is negative
     */
    public static String text(long id) {
        SplittableRandom random = random(id).split().split();
        StringBuilder sb = new StringBuilder(TEXT_BYTES + 16);
        sb.append(title(id)).append(". ");
        while (sb.length() < TEXT_BYTES) {
            sb.append(WORDS[random.nextInt(WORDS.length)]).append(' ');
        }
        sb.setLength(TEXT_BYTES);
        return sb.toString();
    }

    /**
     * Expands an offer's text into its description of {@code size} characters.
     *
     * @param text the offer's text, non-empty ASCII
     * @param size the description's length in characters (and bytes), 1 or more
     * @return the text repeated to exactly {@code size} characters
     * @throws IllegalArgumentException if {@code size} is not positive or {@code text} is empty
     */
    public static String description(String text, int size) {
        if (size <= 0) {
            throw new IllegalArgumentException("description size must be positive, got " + size + " bytes");
        }
        byte[] bytes = new byte[size];
        describeInto(text, MemorySegment.ofArray(bytes));
        return new String(bytes, StandardCharsets.ISO_8859_1);
    }

    /**
     * Writes the description {@link #description(String, int)} makes of {@code text} into {@code target}, without
     * building it on the heap: what a store does when it streams a large column into the caller's memory.
     *
     * @param text the offer's text, non-empty ASCII
     * @param target where the description goes; its size is the description's length, 1 byte or more
     * @throws IllegalArgumentException if {@code target} is empty or {@code text} is empty
     */
    public static void describeInto(String text, MemorySegment target) {
        long size = target.byteSize();
        if (size <= 0) {
            throw new IllegalArgumentException("description size must be positive, got " + size + " bytes");
        }
        if (text.isEmpty()) {
            throw new IllegalArgumentException("an offer's text must not be empty");
        }
        long filled = Math.min(text.length(), size);
        if (filled < size) {
            // the text's bytes copied straight from the string (no encoded copy on the heap: it was over a third
            // of what the off-heap variant allocated); its terminating zero lands where the doubling copies
            // write next
            target.setString(0, text, StandardCharsets.ISO_8859_1);
        } else {
            for (int i = 0; i < filled; i++) {
                target.set(ValueLayout.JAVA_BYTE, i, (byte) text.charAt(i));
            }
        }
        // doubling copies: log2(size / text) copies instead of one per repetition
        while (filled < size) {
            long n = Math.min(filled, size - filled);
            MemorySegment.copy(target, 0, target, filled, n);
            filled += n;
        }
    }

    /**
     * Checks that a loader's caller gave memory of exactly the description's size.
     *
     * @param target where a description is to go
     * @param descriptionSize the description's size in bytes
     * @throws IllegalStateException if the sizes differ
     */
    static void requireDescriptionSize(MemorySegment target, int descriptionSize) {
        if (target.byteSize() != descriptionSize) {
            throw new IllegalStateException("the description is " + descriptionSize + " bytes, the target "
                    + target.byteSize());
        }
    }

    /**
     * @param id the offer id
     * @param size the description's length in bytes
     * @return the description {@link #description(String, int)} makes of {@link #text(long)}
     * @throws IllegalArgumentException if {@code id} is negative or {@code size} not positive
     */
    public static String description(long id, int size) {
        return description(text(id), size);
    }

    private static SplittableRandom random(long id) {
        if (id < 0) {
            throw new IllegalArgumentException("offer ids are 0 or more, got " + id);
        }
        return new SplittableRandom(0x0FFE_0FFE_0000_0000L ^ id * 0x9E37_79B9_7F4A_7C15L);
    }
}
