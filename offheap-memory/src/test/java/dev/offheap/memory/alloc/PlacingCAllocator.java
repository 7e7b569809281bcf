package dev.offheap.memory.alloc;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * A stand-in for the C allocator under a {@link NativeAllocator}, for tests that need a block placed at a given
 * address: over blocks freed before, at or below their start, as glibc or the kernel place a later allocation only
 * some of the time. Every block lies in one region of this stand-in's own; each allocation takes the next offset
 * the test {@linkplain #place placed}, and frees are only recorded. Not thread-safe.
 */
final class PlacingCAllocator extends NativeFunctions implements AutoCloseable {
    private final Arena arena = Arena.ofShared();
    private final MemorySegment region;
    private final ArrayDeque<Long> offsets = new ArrayDeque<>();
    private final List<Long> freed = new ArrayList<>();

    /** @param capacity bytes of the region every block lies in */
    PlacingCAllocator(long capacity) {
        super("placing", false);
        this.region = arena.allocate(capacity, 4096);
    }

    /**
     * @param offsets where in the region the next allocations start, in order
     * @return this stand-in
     */
    PlacingCAllocator place(long... offsets) {
        for (long offset : offsets) {
            this.offsets.add(offset);
        }
        return this;
    }

    /** @return the address of the region's byte at {@code offset} */
    long address(long offset) {
        return region.address() + offset;
    }

    /** @return the addresses freed so far, in order */
    List<Long> freed() {
        return List.copyOf(freed);
    }

    private long next(long size) {
        Long offset = offsets.poll();
        if (offset == null) {
            throw new IllegalStateException("the test placed no block for an allocation of " + size + " bytes");
        }
        if (offset < 0 || offset + size > region.byteSize()) {
            throw new IllegalStateException(size + " bytes at offset " + offset + " do not fit the region");
        }
        return region.address() + offset;
    }

    @Override
    long malloc(long size) {
        return next(size);
    }

    @Override
    long calloc(long size) {
        long address = next(size);
        region.asSlice(address - region.address(), size).fill((byte) 0);
        return address;
    }

    @Override
    long alignedAlloc(long alignment, long size) {
        long address = next(size);
        if ((address & (alignment - 1)) != 0) {
            throw new IllegalStateException("the test placed a block at 0x" + Long.toHexString(address)
                    + ", not aligned to " + alignment);
        }
        return address;
    }

    @Override
    long zallocAligned(long alignment, long size) {
        long address = alignedAlloc(alignment, size);
        region.asSlice(address - region.address(), size).fill((byte) 0);
        return address;
    }

    @Override
    void free(long address) {
        freed.add(address);
    }

    @Override
    public void close() {
        arena.close();
    }
}
