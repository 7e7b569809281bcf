package dev.offheap.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.offheap.bench.buffers.BufferHeapCostBenchmark;
import dev.offheap.bench.buffers.BufferRoundBenchmark;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Memory-side benchmarks that did not measure what their javadoc says. Each benchmark method is
 * invoked by hand, as JMH's generated code would, without running JMH.
 */
class MemoryBenchmarkSetupTest {

    private static final String BLACKHOLE_PASSWORD =
            "Today's password is swordfish. I understand instantiating Blackholes directly is dangerous.";

    /**
     * {@code BufferHeapCostBenchmark.directByteBuffers} dropped its buffers to the GC, and the next
     * invocation's "before" reading ran right after the collection that found them unreachable, while
     * the JDK's cleaner thread had not yet run their cleanups: their cleanup objects (a
     * {@code Cleaner} entry and a deallocator per buffer) were counted in "before" and gone by
     * "after", so every invocation after the first reported about half the buffers' heap cost
     * (about 68 instead of about 140 bytes per 4 KiB buffer; the committed {@code buffers.md} has the
     * halved 1.7%). Every invocation must count the whole cost.
     */
    @Test
    void directByteBufferHeapCostIsCountedWholeInEveryInvocation() throws Exception {
        BufferHeapCostBenchmark benchmark = new BufferHeapCostBenchmark();
        benchmark.blockSize = 4096;
        Blackhole bh = new Blackhole(BLACKHOLE_PASSWORD);
        double[] heapBytes = new double[3];
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            for (int i = 0; i < heapBytes.length; i++) {
                BufferHeapCostBenchmark.HeapCost cost = new BufferHeapCostBenchmark.HeapCost();
                benchmark.directByteBuffers(cost, bh);
                heapBytes[i] = cost.heapBytes;
            }
        });
        // a DirectByteBuffer alone is 64 bytes; its cleanup (the cleaner's entry, the deallocator) as much again:
        // about 140 bytes a buffer, and the halved count gave 68. Not compared with the first invocation's: in a
        // JVM that other tests used first, that one's readings also see their leftovers come and go
        assertEveryInvocationCountsAtLeast(heapBytes, benchmark.blockSize, 100);
    }

    /**
     * The same for {@code shmFileByteBuffers}: its mapped buffers are unmapped by their cleaners, which
     * had not run when the next invocation took its first reading.
     */
    @Test
    void mappedByteBufferHeapCostIsCountedWholeInEveryInvocation() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/dev/shm")), "a /dev/shm directory");
        BufferHeapCostBenchmark benchmark = new BufferHeapCostBenchmark();
        benchmark.blockSize = 4096;
        Blackhole bh = new Blackhole(BLACKHOLE_PASSWORD);
        BufferRoundBenchmark.ShmFile file = new BufferRoundBenchmark.ShmFile();
        file.create();
        double[] heapBytes = new double[3];
        try {
            assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
                for (int i = 0; i < heapBytes.length; i++) {
                    BufferHeapCostBenchmark.HeapCost cost = new BufferHeapCostBenchmark.HeapCost();
                    benchmark.shmFileByteBuffers(file, cost, bh);
                    heapBytes[i] = cost.heapBytes;
                }
            });
        } finally {
            file.delete();
        }
        // about 196 bytes a buffer in a JMH fork (156 seen in a first invocation after other tests); the halved
        // count gave 66
        assertEveryInvocationCountsAtLeast(heapBytes, benchmark.blockSize, 120);
    }

    /** Each invocation's heap bytes per 4 KiB block of the 96 MiB are above {@code bytesPerBlock}. */
    private static void assertEveryInvocationCountsAtLeast(double[] heapBytes, int blockSize, double bytesPerBlock) {
        int blocks = (int) ((96L << 20) / blockSize);
        for (int i = 0; i < heapBytes.length; i++) {
            assertThat(heapBytes[i] / blocks).as("heap bytes per buffer of invocation %d (all: %s)", i + 1,
                    java.util.Arrays.toString(heapBytes)).isGreaterThan(bytesPerBlock);
        }
    }

    /**
     * {@code BufferRoundBenchmark.directByteBuffers} drops its buffers, and says that their reclaim
     * (an {@code allocateDirect} that meets the direct-memory limit calls {@code System.gc()} and
     * waits for the cleaners) lands in the rounds that pay for it. Its forks had the default limit,
     * the 1 GiB heap: ten rounds of 96 MiB fitted, and {@code offheap bench} runs 8 rounds in full
     * mode (3 + 5) and 3 in quick mode, so no round ever reclaimed (checked by hand: 8 rounds, no
     * collection, 768 MiB of direct buffers still held at the end) and the committed row measured
     * allocation alone. The limit must make the third round reclaim, as the seed's 256 MB did.
     */
    @Test
    void directBuffersOfTheRoundBenchmarkMeetTheDirectMemoryLimitWithinThreeRounds() {
        Fork fork = BufferRoundBenchmark.class.getAnnotation(Fork.class);
        long heap = -1;
        long limit = -1;
        for (String arg : fork.jvmArgsAppend()) {
            if (arg.startsWith("-Xmx")) {
                heap = bytes(arg.substring("-Xmx".length()));
            } else if (arg.startsWith("-XX:MaxDirectMemorySize=")) {
                limit = bytes(arg.substring("-XX:MaxDirectMemorySize=".length()));
            }
        }
        long effective = limit >= 0 ? limit : heap; // the JDK's default limit is the maximum heap
        assertThat(effective).as("the direct-memory limit of the round benchmark's forks").isPositive()
                .isLessThan(3 * (96L << 20));
    }

    private static long bytes(String size) {
        String s = size.toLowerCase(Locale.ROOT);
        long unit = switch (s.charAt(s.length() - 1)) {
            case 'k' -> 1L << 10;
            case 'm' -> 1L << 20;
            case 'g' -> 1L << 30;
            default -> 1;
        };
        return Long.parseLong(unit == 1 ? s : s.substring(0, s.length() - 1)) * unit;
    }
}
