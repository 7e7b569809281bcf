package dev.offheap.cli.inspect;

import dev.offheap.cache.OffHeapCache;
import dev.offheap.cache.Serializer;
import dev.offheap.memory.Budget;
import dev.offheap.memory.MemoryManager;
import dev.offheap.memory.MemoryType;
import dev.offheap.memory.alloc.DebugMode;
import dev.offheap.memory.alloc.PooledAllocator;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The JVM that {@link InspectCommandTest} inspects from outside: a memory manager whose owner holds 3
 * pages and a child of whose budget ("target-index", limit 256 KiB) uses 64 KiB, a cache of 10 entries read 4 times (3 hits, 1 miss), a direct buffer of 1 MiB, and a pooled
 * allocator in SAMPLED mode tracking every allocation, with 3 allocations of 1,000 bytes made by
 * {@link #allocateInALeakySite}. Prints "ready" when they exist and runs until its standard input closes.
 */
public final class InspectTarget {
    private InspectTarget() {
    }

    /**
     * @param args ignored
     * @throws IOException if standard input fails
     */
    public static void main(String[] args) throws IOException {
        try (MemoryManager manager = MemoryManager.builder().name("target-manager").totalSize(1 << 20).pageSize(32 * 1024)
                .type(MemoryType.NATIVE).build();
             OffHeapCache<Long, String> cache = OffHeapCache.builder(Serializer.longs(), Serializer.strings())
                     .name("target-cache").capacity(4 << 20).recordStats(true).build();
             PooledAllocator allocator = PooledAllocator.builder().name("target-allocator").debug(DebugMode.SAMPLED)
                     .sampleRate(1).build();
             Budget index = manager.budget().child("target-index", 256 * 1024)) {
            allocateInALeakySite(allocator);
            manager.allocatePages("target-owner", 3);
            index.reserve(64 * 1024);
            for (long k = 0; k < 10; k++) {
                cache.put(k, "value " + k);
            }
            for (long k = 0; k < 3; k++) {
                cache.getIfPresent(k);
            }
            cache.getIfPresent(99L);
            ByteBuffer direct = ByteBuffer.allocateDirect(1 << 20);
            System.out.println("ready");
            System.out.flush();
            while (System.in.read() >= 0) {
                // wait for the test to close our input
            }
            direct.put(0, (byte) 1);
            index.release(64 * 1024);
        }
    }

    /** Makes the allocations that the allocator's report groups under this method. */
    static void allocateInALeakySite(PooledAllocator allocator) {
        for (int i = 0; i < 3; i++) {
            allocator.allocate(1000);
        }
    }
}
