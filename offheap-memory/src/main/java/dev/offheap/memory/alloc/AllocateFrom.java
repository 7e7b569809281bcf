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
     * Copies {@code elementCount} elements of {@code source} from {@code sourceOffset} into a new allocation,
     * after every check {@link MemorySegment#copy(MemorySegment, ValueLayout, long, MemorySegment, ValueLayout,
     * long, long)} makes (the JDK's default {@code allocateFrom} leaves them to the copy, after allocating): a
     * call it refuses throws the same exception before anything is allocated, so that it neither takes memory
     * nor charges a budget (a pooled span, a stack frame's bytes and the chunk a stack grows by stay with the
     * allocator when the block is freed) nor throws a budget's refusal for a size the source cannot hold.
     *
     * @param undo frees the allocation when the copy fails all the same (a shared source closed by another thread
     *             between the checks and the copy), which the caller never sees and so could never free; null
     *             where the memory goes back without it (a stack frame's, when the frame closes)
     * @throws IllegalArgumentException  if the layouts differ in size, either is aligned beyond its size,
     *                                   {@code elementCount} is negative or its size overflows a long, or the source
     *                                   is not aligned for {@code sourceElementLayout} at {@code sourceOffset}
     * @throws IndexOutOfBoundsException if the elements do not lie inside {@code source}
     * @throws IllegalStateException     if {@code source}'s scope is closed
     * @throws WrongThreadException      if {@code source} is confined to another thread
     */
    static MemorySegment copy(Uninitialized allocator, Consumer<MemorySegment> undo, ValueLayout elementLayout,
                              MemorySegment source, ValueLayout sourceElementLayout, long sourceOffset, long elementCount) {
        Objects.requireNonNull(source);
        Objects.requireNonNull(sourceElementLayout);
        Objects.requireNonNull(elementLayout);
        if (elementCount < 0) {
            throw new IllegalArgumentException("element count must be at least 0, was " + elementCount);
        }
        if (elementLayout.byteSize() != sourceElementLayout.byteSize()) {
            throw new IllegalArgumentException("element layouts differ in size: " + elementLayout.byteSize() + " and "
                    + sourceElementLayout.byteSize() + " bytes");
        }
        // the copy refuses an element layout aligned beyond its size, in the source and in the destination
        if (sourceElementLayout.byteAlignment() > sourceElementLayout.byteSize()) {
            throw new IllegalArgumentException("Source layout alignment greater than its size: " + sourceElementLayout);
        }
        if (elementLayout.byteAlignment() > elementLayout.byteSize()) {
            throw new IllegalArgumentException("Destination layout alignment greater than its size: " + elementLayout);
        }
        long bytes;
        try {
            bytes = Math.multiplyExact(elementLayout.byteSize(), elementCount);
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("size of " + elementCount + " elements of " + elementLayout.byteSize()
                    + " bytes overflows a long", e);
        }
        // bounds (IndexOutOfBoundsException, with no overflow of sourceOffset + bytes) and the source's alignment at
        // sourceOffset (IllegalArgumentException; a heap segment's counts the alignment its array guarantees)
        source.asSlice(sourceOffset, bytes, sourceElementLayout.byteAlignment());
        if (!source.scope().isAlive()) {
            throw new IllegalStateException("Already closed: the scope of the source segment " + source);
        }
        if (!source.isAccessibleBy(Thread.currentThread())) {
            throw new WrongThreadException("the source segment " + source + " is confined to another thread");
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

    /**
     * Checks that {@code value} can be stored through an address layout, as the store would: only a native
     * segment has an address. Called before allocating, so that a refused value allocates nothing.
     *
     * @throws IllegalArgumentException if {@code value} is a heap segment
     */
    static void storableAddress(MemorySegment value) {
        Objects.requireNonNull(value);
        if (!value.isNative()) {
            throw new IllegalArgumentException("Heap segment not allowed: " + value);
        }
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
