package dev.offheap.bench.alloc;

import java.lang.foreign.MemorySegment;

/**
 * The upper bound of any allocator: slices of one preallocated segment, handed out by bumping an
 * offset, never freed one by one; when the next slice does not fit, the offset goes back to zero
 * and old slices are overwritten. Slices are 16-byte aligned, as malloc's are. One per thread.
 */
final class BumpRegion {
    /** Alignment of every slice, malloc's on x86-64. */
    static final long ALIGNMENT = 16;

    private final MemorySegment block;
    private long offset;

    /**
     * @param block the memory to hand out; its contents are not cleared
     */
    BumpRegion(MemorySegment block) {
        this.block = block;
    }

    /**
     * @param bytes the size
     * @return a slice of {@code bytes} of the region, 16-byte aligned relative to the region
     * @throws IllegalArgumentException if {@code bytes} is negative or larger than the region
     */
    MemorySegment allocate(long bytes) {
        if (bytes < 0 || bytes > block.byteSize()) {
            throw new IllegalArgumentException("cannot bump-allocate " + bytes + " bytes from a region of "
                    + block.byteSize());
        }
        long at = (offset + ALIGNMENT - 1) & -ALIGNMENT;
        if (at > block.byteSize() - bytes) {
            at = 0; // full: start over; what was handed out before is reused
        }
        offset = at + bytes;
        return block.asSlice(at, bytes);
    }

    /** @return the offset of the next slice, before alignment */
    long offset() {
        return offset;
    }
}
