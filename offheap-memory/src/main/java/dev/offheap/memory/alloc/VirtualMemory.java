package dev.offheap.memory.alloc;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Locale;

/**
 * {@code mmap}, {@code mprotect}, {@code madvise} and {@code munmap} through {@link Linker}, for
 * {@link PooledAllocator}'s address range: reserved inaccessible ({@code PROT_NONE}, which costs no
 * memory and no commit charge), made readable and writable as it is used, and given back to the
 * system with {@code MADV_DONTNEED} (the pages stay mapped and read as zero, so a stale segment can
 * never fault the JVM).
 */
final class VirtualMemory {
    private static final int PROT_NONE = 0;
    private static final int PROT_READ_WRITE = 0x1 | 0x2;
    private static final int MAP_PRIVATE = 0x02;
    static final boolean LINUX = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux");
    /** MAP_ANONYMOUS is 0x20 on Linux (x86-64, aarch64) and 0x1000 on macOS and the BSDs. */
    private static final int MAP_ANONYMOUS = LINUX ? 0x20 : 0x1000;
    /** MADV_DONTNEED: 4 on both. */
    private static final int MADV_DONTNEED = 4;
    /** MADV_HUGEPAGE (Linux only): back the range with transparent huge pages when the system allows it. */
    private static final int MADV_HUGEPAGE = 14;
    /** MADV_NOHUGEPAGE (Linux only): never back the range with transparent huge pages. */
    private static final int MADV_NOHUGEPAGE = 15;
    private static final long MAP_FAILED = -1L;
    /** Whether purged memory reads as zero afterwards (Linux anonymous memory); elsewhere it must be zeroed again. */
    static final boolean PURGE_ZEROES = LINUX;

    private static final MethodHandle MMAP;
    private static final MethodHandle MPROTECT;
    private static final MethodHandle MADVISE;
    private static final MethodHandle MUNMAP;

    static {
        Linker linker = Linker.nativeLinker();
        MMAP = bind(linker, "mmap", FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG));
        FunctionDescriptor threeArgs = FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                ValueLayout.JAVA_INT);
        MPROTECT = bind(linker, "mprotect", threeArgs);
        MADVISE = bind(linker, "madvise", threeArgs);
        MUNMAP = bind(linker, "munmap", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
    }

    private VirtualMemory() {
    }

    // downcallHandle is restricted: each descriptor matches the POSIX prototype (addresses as 64-bit integers).
    @SuppressWarnings("restricted")
    private static MethodHandle bind(Linker linker, String name, FunctionDescriptor descriptor) {
        return linker.downcallHandle(linker.defaultLookup().find(name)
                .orElseThrow(() -> new IllegalStateException("native function " + name + " not found")), descriptor);
    }

    /**
     * Reserves {@code bytes} of address space aligned to {@code alignment}, inaccessible.
     *
     * @return the aligned start address
     * @throws OutOfMemoryError if the system refuses the reservation
     */
    static long reserve(long bytes, long alignment) {
        return mapAligned(bytes, alignment, PROT_NONE, "cannot reserve " + bytes
                + " bytes of address space (mmap failed); build the PooledAllocator with a smaller capacity");
    }

    /**
     * Maps {@code bytes} of anonymous, readable and writable memory aligned to {@code alignment}. The pages
     * read as zero and take physical memory only when first touched.
     *
     * @return the aligned start address
     * @throws OutOfMemoryError if the system refuses the mapping
     */
    static long mapReadWrite(long bytes, long alignment) {
        return mapAligned(bytes, alignment, PROT_READ_WRITE, "cannot map " + bytes + " bytes of memory (mmap failed)");
    }

    /** Maps anonymous memory with {@code protection}, aligned: the slack of a larger mapping is unmapped. */
    private static long mapAligned(long bytes, long alignment, int protection, String refusal) {
        long raw;
        try {
            raw = (long) MMAP.invokeExact(0L, bytes + alignment, protection, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0L);
        } catch (Throwable e) {
            throw NativeFunctions.rethrow(e);
        }
        if (raw == MAP_FAILED || raw == 0) {
            throw new OutOfMemoryError(refusal);
        }
        return trimToAlignment(raw, bytes, alignment);
    }

    /** Unmaps the slack before and after the aligned part of a mapping of {@code bytes + alignment}. */
    private static long trimToAlignment(long raw, long bytes, long alignment) {
        long aligned = (raw + alignment - 1) & -alignment;
        if (aligned > raw) {
            unmap(raw, aligned - raw);
        }
        long tail = raw + bytes + alignment - (aligned + bytes);
        if (tail > 0) {
            unmap(aligned + bytes, tail);
        }
        return aligned;
    }

    /**
     * Advises the system to back a mapped range with transparent huge pages, or never to (even where
     * they are on for all memory); Linux only, elsewhere nothing. Advice only: where huge pages are off,
     * or the kernel refuses, the range keeps its small pages.
     */
    static void adviseHugePages(long address, long bytes, boolean huge) {
        if (!LINUX) {
            return;
        }
        try {
            int ignored = (int) MADVISE.invokeExact(address, bytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
        } catch (Throwable e) {
            throw NativeFunctions.rethrow(e);
        }
    }

    /** Makes a reserved range readable and writable. @throws OutOfMemoryError if the system refuses */
    static void commit(long address, long bytes) {
        int rc;
        try {
            rc = (int) MPROTECT.invokeExact(address, bytes, PROT_READ_WRITE);
        } catch (Throwable e) {
            throw NativeFunctions.rethrow(e);
        }
        if (rc != 0) {
            throw new OutOfMemoryError("cannot commit " + bytes + " bytes (mprotect failed)");
        }
    }

    /** Gives the physical memory of a committed range back; it stays accessible and reads as zero. */
    static void purge(long address, long bytes) {
        try {
            int ignored = (int) MADVISE.invokeExact(address, bytes, MADV_DONTNEED);
        } catch (Throwable e) {
            throw NativeFunctions.rethrow(e);
        }
    }

    static void unmap(long address, long bytes) {
        try {
            int ignored = (int) MUNMAP.invokeExact(address, bytes);
        } catch (Throwable e) {
            throw NativeFunctions.rethrow(e);
        }
    }
}
