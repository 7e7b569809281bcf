package dev.offheap.memory.alloc;

import dev.offheap.memory.internal.VirtualMemory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * Large, long-lived native regions for data structures that read them at random (a cache's hash table
 * and entries): anonymous memory mapped directly, aligned to 2 MiB, and advised to use transparent huge
 * pages where the system offers them (Linux with {@code transparent_hugepage} set to {@code madvise} or
 * {@code always}).
 *
 * <p>Why: a random read of a region much larger than the CPU's caches misses the TLB as well as the data
 * caches, and with 4 KiB pages the page walk adds its own misses. Measured on the build machine (a
 * 256 MiB region, a chain of dependent reads at random 64-byte slots): 240 ns per read with 4 KiB pages,
 * 165 ns with 2 MiB pages. {@link Arena#allocate} cannot give huge pages: it zeroes the memory it gets
 * from malloc, which faults every 4 KiB page in before any advice could apply. Mapped memory reads as
 * zero without being written, and takes physical memory only as it is first touched.
 *
 * <p>Regions under {@link #HUGE_PAGE_BYTES}, and every region on systems other than Linux, come from
 * {@code arena.allocate} instead. The memory lives as long as the arena: closing it gives the region back
 * (its physical memory at once, its address range a second later),
 * and every segment of it throws {@link IllegalStateException} on access from then on.
 *
 * <p>Native Memory Tracking does not see mapped regions (it counts the JVM's own allocations, among
 * them {@code Arena.allocate}'s); the process's resident set does.
 *
 * <p>Thread-safe: {@link #allocate} may be called from any thread.
 */
public final class LargeRegions {
    /** The huge page size of x86-64 and of aarch64 with 4 KiB base pages: regions are aligned to it. */
    public static final long HUGE_PAGE_BYTES = 2L << 20;

    private LargeRegions() {
    }

    /**
     * Allocates a zeroed region of {@code bytes}, 8-byte aligned at least, that lives until {@code arena}
     * closes.
     *
     * @param bytes the region's size in bytes, at least 0
     * @param arena the arena whose lifetime the region shares; its scope guards every access
     * @return the region
     * @throws IllegalArgumentException if {@code bytes} is negative
     * @throws IllegalStateException if the arena is closed
     * @throws WrongThreadException if the arena is confined to another thread
     * @throws OutOfMemoryError if the system refuses the memory
     */
    public static MemorySegment allocate(long bytes, Arena arena) {
        Objects.requireNonNull(arena, "arena");
        if (bytes < 0) {
            throw new IllegalArgumentException("a region of " + bytes + " bytes: the size must be at least 0");
        }
        if (!VirtualMemory.LINUX || bytes < HUGE_PAGE_BYTES) {
            return arena.allocate(bytes, Long.BYTES);
        }
        if (bytes > Long.MAX_VALUE - 2 * HUGE_PAGE_BYTES) {
            // rounded up and aligned, the mapping's length would overflow (and the refusal name a negative size)
            throw new OutOfMemoryError("cannot map a region of " + bytes + " bytes: larger than any address space");
        }
        long mapped = (bytes + HUGE_PAGE_BYTES - 1) & -HUGE_PAGE_BYTES;
        long address = VirtualMemory.mapReadWrite(mapped, HUGE_PAGE_BYTES);
        // Huge pages only where they lie wholly inside the region: a huge page over its end would make
        // the system commit up to 2 MiB beyond the bytes asked for (a cache of 2.06 MiB held 4 MiB), and a
        // cache's capacity counts every byte. The rest of the mapping keeps small pages.
        long whole = bytes & -HUGE_PAGE_BYTES;
        try {
            VirtualMemory.adviseHugePages(address, whole, true);
            if (mapped > whole) {
                VirtualMemory.adviseHugePages(address + whole, mapped - whole, false);
            }
            return bind(address, bytes, mapped, arena);
        } catch (RuntimeException | Error e) {
            VirtualMemory.unmap(address, mapped);
            throw e;
        }
    }

    // reinterpret is restricted: the range was just mapped with at least this size, and is given back only
    // by the arena's close, after which no segment of it can be used (released, not unmapped at once: an
    // access may still slip past a shared arena's close, see VirtualMemory.RELEASE_GRACE_MILLIS).
    @SuppressWarnings("restricted")
    private static MemorySegment bind(long address, long bytes, long mapped, Arena arena) {
        return MemorySegment.ofAddress(address).reinterpret(bytes, arena, segment -> VirtualMemory.release(address, mapped));
    }
}
