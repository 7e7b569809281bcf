package dev.offheap.memory.alloc;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * FULL mode promises IllegalStateException, with both stack traces, for every double free. When two
 * threads freed one NativeAllocator allocation at once, the second found the allocation gone from the
 * table while the first was still closing its scope, before the tracker had its free record, and was
 * told a foreign free (IllegalArgumentException, "did not allocate") in most rounds.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TwoThreadsFreeingOneNativeAllocationInFullModeTest {

    @ParameterizedTest
    @ValueSource(longs = {200, NativeAllocator.OWN_SCOPE_THRESHOLD + 1})
    void oneFreeSucceedsAndTheOtherIsADoubleFree(long size) throws Exception {
        try (NativeAllocator a = NativeAllocator.builder().debug(DebugMode.FULL).build()) {
            for (int round = 0; round < 50; round++) {
                MemorySegment segment = a.allocate(size);
                CyclicBarrier start = new CyclicBarrier(2);
                List<Throwable> refused = new CopyOnWriteArrayList<>();
                Runnable free = () -> {
                    try {
                        start.await();
                        a.free(segment);
                    } catch (Throwable e) {
                        refused.add(e);
                    }
                };
                Thread first = Thread.ofPlatform().start(free);
                Thread second = Thread.ofPlatform().start(free);
                first.join();
                second.join();
                assertThat(refused).as("round %d", round).hasSize(1);
                assertThat(refused.getFirst()).as("round %d", round).isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("double free");
                assertThat(a.allocatedBytes()).isZero();
            }
        }
    }
}
