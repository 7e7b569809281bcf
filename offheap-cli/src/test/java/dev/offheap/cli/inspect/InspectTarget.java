package dev.offheap.cli.inspect;

import dev.offheap.cache.OffHeapCache;
import dev.offheap.cache.Serializer;
import dev.offheap.memory.MemoryManager;
import dev.offheap.memory.MemoryType;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The JVM that {@link InspectCommandTest} inspects from outside: a memory manager whose owner holds 3
 * pages, a cache of 10 entries read 4 times (3 hits, 1 miss), and a direct buffer of 1 MiB. Prints
 * "ready" when they exist and runs until its standard input closes.
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
                     .name("target-cache").capacity(4 << 20).recordStats(true).build()) {
            manager.allocatePages("target-owner", 3);
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
        }
    }
}
