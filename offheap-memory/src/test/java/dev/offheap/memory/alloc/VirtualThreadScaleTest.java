package dev.offheap.memory.alloc;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The allocators used from a virtual thread per request, as a server on JDK 25 has them: tens of thousands
 * of short-lived threads, a few alive at a time. What ended threads leave behind must not make a later
 * request fail while the memory it needs is free.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class VirtualThreadScaleTest {

    @Test
    void blocksCachedByEndedVirtualThreadsDoNotExhaustTheAddressRange() throws Exception {
        // Before: each thread took a batch of blocks into its cache (four of 64 KiB), used one and ended with
        // the batch cached; caches of ended threads went back only every 64 new caches, on trim() or when
        // idle (a budget's refusal trims, the range's did not). So a range of 4 MiB ran out after about 16
        // requests of at most 64 KiB each, four at a time, with all of it free: OutOfMemoryError "build it
        // with a larger capacity".
        Random random = new Random(25);
        try (PooledAllocator a = PooledAllocator.builder().capacity(4L << 20).idleRelease(Duration.ZERO).build()) {
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread[] wave = new Thread[4];
            for (int request = 0; request < 10_000 && failure.get() == null; request += wave.length) {
                for (int i = 0; i < wave.length; i++) {
                    long size = random.nextBoolean() ? 64 * 1024 : 1 + random.nextInt(64 * 1024);
                    int id = request + i;
                    wave[i] = Thread.ofVirtual().start(() -> {
                        try {
                            MemorySegment s = a.allocate(size);
                            s.set(ValueLayout.JAVA_BYTE, size - 1, (byte) id);
                            Thread.yield(); // the others of the wave run meanwhile
                            assertThat(s.get(ValueLayout.JAVA_BYTE, size - 1)).isEqualTo((byte) id);
                            a.free(s);
                        } catch (Throwable e) {
                            failure.compareAndSet(null, new AssertionError("request " + id + " of " + size
                                    + " bytes, footprint " + a.footprintBytes() + ", caches " + a.threadCacheCount(), e));
                        }
                    });
                }
                for (Thread t : wave) {
                    assertThat(t.join(Duration.ofSeconds(10))).isTrue();
                }
            }
            assertThat(failure.get()).isNull();
            assertThat(a.allocatedBytes()).isZero();
            assertThat(a.threadCacheCount()).isLessThanOrEqualTo(64 + wave.length);
        }
    }
}
