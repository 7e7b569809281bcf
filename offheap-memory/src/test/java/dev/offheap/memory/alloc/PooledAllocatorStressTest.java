package dev.offheap.memory.alloc;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Threads allocate, write a unique stamp into the first and last 8 bytes, free their own blocks and
 * each other's in random order, and check every stamp before freeing: a block handed out twice, or
 * memory handed back while still in use, overwrites a stamp. Seeded, so a failure repeats.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class PooledAllocatorStressTest {

    @ParameterizedTest(name = "seed {0}, {1} threads, debug {2}")
    @CsvSource({"1, 4, OFF", "2, 2, OFF", "3, 3, SAMPLED", "4, 2, FULL"})
    void concurrentAllocateAndFreeNeverHandsOutABlockTwice(long seed, int threads, DebugMode mode) throws Exception {
        int operations = mode == DebugMode.FULL ? 20_000 : 200_000;
        try (PooledAllocator a = PooledAllocator.builder().debug(mode).sampleRate(16).idleRelease(Duration.ofMillis(5)).build()) {
            ConcurrentLinkedQueue<MemorySegment> shared = new ConcurrentLinkedQueue<>();
            AtomicLong stamps = new AtomicLong(1);
            List<Throwable> failures = new CopyOnWriteArrayList<>();
            CountDownLatch done = new CountDownLatch(threads);
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Random random = new Random(seed * 1000 + t);
                workers.add(Thread.ofPlatform().start(() -> {
                    List<MemorySegment> own = new ArrayList<>();
                    try {
                        for (int i = 0; i < operations; i++) {
                            int op = random.nextInt(10);
                            if (op < 5 || own.isEmpty()) {
                                long size = switch (random.nextInt(20)) {
                                    case 0 -> 65_536 + random.nextInt(300_000);
                                    case 1, 2 -> 4096 + random.nextInt(60_000);
                                    default -> 16 + random.nextInt(1000);
                                };
                                long alignment = 1L << random.nextInt(8);
                                MemorySegment s = random.nextBoolean() ? a.allocate(size, alignment)
                                        : a.allocateUninitialized(size, alignment);
                                long stamp = stamps.getAndIncrement();
                                s.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, stamp);
                                s.set(ValueLayout.JAVA_LONG_UNALIGNED, size - 8, stamp);
                                own.add(s);
                            } else if (op < 8) {
                                free(a, own.remove(random.nextInt(own.size())));
                            } else if (op == 8) {
                                shared.add(own.remove(random.nextInt(own.size())));
                            } else {
                                MemorySegment s = shared.poll();
                                if (s != null) {
                                    free(a, s);
                                }
                            }
                        }
                        for (MemorySegment s : own) {
                            free(a, s);
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                    } finally {
                        done.countDown();
                    }
                }));
            }
            assertThat(done.await(150, TimeUnit.SECONDS)).isTrue();
            for (Thread w : workers) {
                w.join(); // ended threads' caches are what trim() sweeps
            }
            assertThat(failures).isEmpty();
            for (MemorySegment s; (s = shared.poll()) != null; ) {
                free(a, s);
            }
            assertThat(a.allocatedBytes()).isZero();
            assertThat(a.report().liveAllocations()).isZero();
            assertThat(a.report().problems()).isEmpty();
            a.trim();
            assertThat(a.footprintBytes()).isZero();
        }
    }

    /**
     * Regression: close() closed the own scopes of the FULL-mode allocations it found live while other
     * threads freed them (the free closed the same scope: close() threw "Already closed"), and an
     * allocation that recorded itself after close() had looked kept a live segment over memory that
     * close() then unmapped. Every round closes while two threads allocate, write and free; the only
     * failure a worker may see is the closed allocator's IllegalStateException, and close() must not throw.
     */
    @ParameterizedTest(name = "debug {0}")
    @CsvSource({"FULL", "SAMPLED"})
    void closeRacingTrackedAllocationsAndFreesNeitherThrowsNorLeavesALiveSegment(DebugMode mode) throws Exception {
        for (int round = 0; round < 40; round++) {
            PooledAllocator a = PooledAllocator.builder().debug(mode).sampleRate(2).build();
            List<Throwable> unexpected = new CopyOnWriteArrayList<>();
            CountDownLatch running = new CountDownLatch(2);
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                Random random = new Random(round * 10L + t);
                workers.add(Thread.ofPlatform().start(() -> {
                    running.countDown();
                    while (true) {
                        MemorySegment s;
                        try {
                            s = a.allocate(random.nextInt(8) == 0 ? 100_000 : 1 + random.nextInt(300));
                        } catch (IllegalStateException closed) {
                            return;
                        } catch (Throwable e) {
                            unexpected.add(e);
                            return;
                        }
                        try {
                            s.fill((byte) 7);
                        } catch (IllegalStateException closed) {
                            // closed between the allocation and the write: the segment is dead, not dangling
                            return;
                        }
                        try {
                            a.free(s);
                        } catch (Throwable e) {
                            unexpected.add(e);
                            return;
                        }
                    }
                }));
            }
            running.await();
            Thread.sleep(1 + round % 5);
            a.close();
            for (Thread w : workers) {
                w.join();
            }
            assertThat(unexpected).as("round %d", round).isEmpty();
        }
    }

    private static void free(PooledAllocator a, MemorySegment s) {
        long first = s.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
        long last = s.get(ValueLayout.JAVA_LONG_UNALIGNED, s.byteSize() - 8);
        if (first != last) {
            throw new AssertionError("block at 0x" + Long.toHexString(s.address()) + " of " + s.byteSize()
                    + " bytes was overwritten: stamps " + first + " and " + last);
        }
        a.free(s);
    }
}
