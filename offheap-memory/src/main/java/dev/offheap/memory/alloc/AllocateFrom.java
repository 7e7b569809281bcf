package dev.offheap.memory.alloc;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * The {@code allocateFrom} family without zeroing, shared by {@link Allocator} and
 * {@link StackAllocator.Frame}: the JDK's default implementations call {@code allocate}, which
 * zeroes memory that the copy overwrites right after (seed 004: zeroing is a large part of the cost).
 */
final class AllocateFrom {
    /** An allocation without zeroing: size and alignment in bytes. */
    @FunctionalInterface
    interface Uninitialized {
        MemorySegment allocate(long byteSize, long byteAlignment);
    }

    private AllocateFrom() {
    }

    static MemorySegment string(Uninitialized allocator, String str, Charset charset) {
        Objects.requireNonNull(str);
        Objects.requireNonNull(charset);
        int terminator = terminatorSize(charset);
        byte[] bytes = str.getBytes(charset);
        MemorySegment seg = allocator.allocate((long) bytes.length + terminator, 1);
        MemorySegment.copy(bytes, 0, seg, ValueLayout.JAVA_BYTE, 0, bytes.length);
        seg.asSlice(bytes.length, terminator).fill((byte) 0);
        return seg;
    }

    /**
     * @param undo frees the allocation when the copy fails (a source offset out of bounds or misaligned, a
     *             closed source), which the caller never sees and so could never free; null where the
     *             memory goes back without it (a stack frame's, when the frame closes)
     */
    static MemorySegment copy(Uninitialized allocator, Consumer<MemorySegment> undo, ValueLayout elementLayout,
                              MemorySegment source, ValueLayout sourceElementLayout, long sourceOffset, long elementCount) {
        Objects.requireNonNull(source);
        Objects.requireNonNull(sourceElementLayout);
        Objects.requireNonNull(elementLayout);
        if (elementCount < 0) {
            throw new IllegalArgumentException("element count must be at least 0, was " + elementCount);
        }
        long bytes;
        try {
            bytes = Math.multiplyExact(elementLayout.byteSize(), elementCount);
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("size of " + elementCount + " elements of " + elementLayout.byteSize()
                    + " bytes overflows a long", e);
        }
        if (elementLayout.byteSize() != sourceElementLayout.byteSize()) {
            throw new IllegalArgumentException("element layouts differ in size: " + elementLayout.byteSize() + " and "
                    + sourceElementLayout.byteSize() + " bytes");
        }
        MemorySegment dest = allocator.allocate(bytes, elementLayout.byteAlignment());
        try {
            MemorySegment.copy(source, sourceElementLayout, sourceOffset, dest, elementLayout, 0, elementCount);
        } catch (RuntimeException e) {
            if (undo != null) {
                try {
                    undo.accept(dest);
                } catch (RuntimeException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            throw e;
        }
        return dest;
    }

    /** Bytes of the terminating NUL character in {@code charset}, as the JDK's own allocateFrom uses. */
    private static int terminatorSize(Charset charset) {
        if (charset.equals(StandardCharsets.UTF_8) || charset.equals(StandardCharsets.US_ASCII)
                || charset.equals(StandardCharsets.ISO_8859_1)) {
            return 1;
        }
        if (charset.equals(StandardCharsets.UTF_16) || charset.equals(StandardCharsets.UTF_16BE)
                || charset.equals(StandardCharsets.UTF_16LE)) {
            return 2;
        }
        String name = charset.name();
        if (name.equals("UTF-32") || name.equals("UTF-32BE") || name.equals("UTF-32LE")) {
            return 4;
        }
        throw new IllegalArgumentException("unsupported charset for a C string: " + charset
                + " (use a standard charset such as UTF-8, UTF-16 or UTF-32)");
    }
}
