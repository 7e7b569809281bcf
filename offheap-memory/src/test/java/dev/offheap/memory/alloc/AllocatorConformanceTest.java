package dev.offheap.memory.alloc;

import dev.offheap.memory.Budget;
import dev.offheap.memory.BudgetExceededException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What every {@link Allocator} in every debug mode must do. One subclass per allocator and mode says
 * how to build it and which detections its mode promises.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
abstract class AllocatorConformanceTest {
    private final List<Allocator> allocators = new ArrayList<>();
    private final List<Budget> budgets = new ArrayList<>();

    /** Builds the allocator under test, drawing from {@code budget} if not null. */
    abstract Allocator build(Budget budget);

    /** The mode the subclass builds with. */
    abstract DebugMode mode();

    /** The exception a double free gets (right after the first free, nothing in between). */
    Class<? extends RuntimeException> doubleFreeException() {
        return IllegalStateException.class;
    }

    Allocator newAllocator() {
        return newAllocator(null);
    }

    Allocator newAllocator(Budget budget) {
        Allocator a = build(budget);
        allocators.add(a);
        return a;
    }

    @AfterEach
    void closeAll() {
        allocators.forEach(Allocator::close);
        budgets.forEach(Budget::close);
    }

    static void writePattern(MemorySegment s, long seed) {
        for (long i = 0; i < s.byteSize(); i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) (seed + i * 31));
        }
    }

    static void assertPattern(MemorySegment s, long seed) {
        for (long i = 0; i < s.byteSize(); i++) {
            if (s.get(ValueLayout.JAVA_BYTE, i) != (byte) (seed + i * 31)) {
                throw new AssertionError("byte " + i + " of " + s + " lost its pattern");
            }
        }
    }

    static void assertZero(MemorySegment s) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment zeros = arena.allocate(Math.max(1, s.byteSize()));
            assertThat(s.mismatch(zeros.asSlice(0, s.byteSize()))).as("first non-zero byte of " + s).isEqualTo(-1L);
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {0, 1, 7, 15, 16, 17, 100, 128, 129, 1000, 1023, 1024, 1025, 1031, 4096, 4097, 65535, 65536, 65537,
        300_000, 1 << 20})
    void allocateGivesZeroedMemoryOfTheRequestedSizeThatHoldsWhatIsWritten(long size) {
        Allocator a = newAllocator();
        // dirty memory first, so that zeroing cannot be an accident of fresh pages
        List<MemorySegment> dirty = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            MemorySegment d = a.allocateUninitialized(size);
            d.fill((byte) 0x5A);
            dirty.add(d);
        }
        dirty.forEach(a::free);
        MemorySegment s = a.allocate(size);
        assertThat(s.byteSize()).isEqualTo(size);
        assertThat(s.isNative()).isTrue();
        assertZero(s);
        writePattern(s, size);
        assertPattern(s, size);
        a.free(s);
    }

    @Test
    void sixtyFourMebibytesAreZeroedAndWritable() {
        Allocator a = newAllocator();
        long size = 64L << 20;
        MemorySegment dirty = a.allocateUninitialized(size);
        dirty.fill((byte) 1);
        a.free(dirty);
        MemorySegment s = a.allocate(size);
        assertThat(s.byteSize()).isEqualTo(size);
        assertZero(s);
        s.set(ValueLayout.JAVA_LONG, 0, 42L);
        s.set(ValueLayout.JAVA_LONG, size - 8, 43L);
        assertThat(s.get(ValueLayout.JAVA_LONG, 0)).isEqualTo(42L);
        assertThat(s.get(ValueLayout.JAVA_LONG, size - 8)).isEqualTo(43L);
        assertThat(a.allocatedBytes()).isEqualTo(size);
        a.free(s);
        assertThat(a.allocatedBytes()).isZero();
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096})
    void everyAlignmentUpTo4096IsHonoured(long alignment) {
        Allocator a = newAllocator();
        List<MemorySegment> live = new ArrayList<>();
        for (long size : new long[]{0, 1, 24, 100, 3000, 5000, 70_000}) {
            for (int i = 0; i < 3; i++) {
                MemorySegment s = i % 2 == 0 ? a.allocate(size, alignment) : a.allocateUninitialized(size, alignment);
                assertThat(s.address() % alignment).as("address of %d bytes at alignment %d", size, alignment).isZero();
                assertThat(s.byteSize()).isEqualTo(size);
                writePattern(s, size + i);
                live.add(s);
            }
        }
        for (int i = 0; i < live.size(); i++) {
            MemorySegment s = live.get(i);
            assertPattern(s, s.byteSize() + (i % 3));
            a.free(s);
        }
        assertThat(a.allocatedBytes()).isZero();
    }

    @Test
    void largerAlignmentsAreHonouredToo() {
        Allocator a = newAllocator();
        for (long alignment : new long[]{8192, 65536, 1 << 20}) {
            MemorySegment s = a.allocate(100, alignment);
            assertThat(s.address() % alignment).isZero();
            a.free(s);
        }
    }

    @Test
    void allocateFromCopiesValuesAndStrings() {
        Allocator a = newAllocator();
        MemorySegment str = a.allocateFrom("héllo wörld");
        assertThat(str.getString(0)).isEqualTo("héllo wörld");
        MemorySegment utf16 = a.allocateFrom("abc", StandardCharsets.UTF_16LE);
        assertThat(utf16.byteSize()).isEqualTo(8);
        assertThat(utf16.getString(0, StandardCharsets.UTF_16LE)).isEqualTo("abc");
        MemorySegment i = a.allocateFrom(ValueLayout.JAVA_INT, 0x12345678);
        assertThat(i.get(ValueLayout.JAVA_INT, 0)).isEqualTo(0x12345678);
        MemorySegment l = a.allocateFrom(ValueLayout.JAVA_LONG, -7L);
        assertThat(l.get(ValueLayout.JAVA_LONG, 0)).isEqualTo(-7L);
        MemorySegment d = a.allocateFrom(ValueLayout.JAVA_DOUBLE, 2.5);
        assertThat(d.get(ValueLayout.JAVA_DOUBLE, 0)).isEqualTo(2.5);
        MemorySegment arr = a.allocateFrom(ValueLayout.JAVA_LONG, 1L, 2L, 3L);
        assertThat(arr.toArray(ValueLayout.JAVA_LONG)).containsExactly(1L, 2L, 3L);
        MemorySegment bytes = a.allocateFrom(ValueLayout.JAVA_BYTE, new byte[0]);
        assertThat(bytes.byteSize()).isZero();
        MemorySegment addr = a.allocateFrom(ValueLayout.ADDRESS, arr);
        assertThat(addr.get(ValueLayout.ADDRESS, 0).address()).isEqualTo(arr.address());
        for (MemorySegment s : List.of(str, utf16, i, l, d, arr, bytes, addr)) {
            a.free(s);
        }
        assertThat(a.allocatedBytes()).isZero();
        assertThatThrownBy(() -> a.allocateFrom("x", java.nio.charset.Charset.forName("windows-1252")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("charset");
    }

    @Test
    void accountsRequestedBytes() {
        Allocator a = newAllocator();
        MemorySegment s1 = a.allocate(100);
        MemorySegment s2 = a.allocateUninitialized(5000);
        MemorySegment s3 = a.allocate(200_000);
        assertThat(a.allocatedBytes()).isEqualTo(205_100);
        assertThat(a.footprintBytes()).isGreaterThanOrEqualTo(a.allocatedBytes());
        AllocationReport r = a.report();
        assertThat(r.allocatedBytes()).isEqualTo(205_100);
        assertThat(r.liveAllocations()).isEqualTo(3);
        assertThat(r.debugMode()).isEqualTo(mode());
        a.free(s2);
        assertThat(a.allocatedBytes()).isEqualTo(200_100);
        a.free(s1);
        a.free(s3);
        assertThat(a.allocatedBytes()).isZero();
        assertThat(a.report().liveAllocations()).isZero();
    }

    @Test
    void aZeroByteAllocationIsTheEmptySegmentThatHoldsNothingAndWhoseFreeDoesNothing() {
        Allocator a = newAllocator();
        MemorySegment live = a.allocate(48);
        for (long alignment : new long[]{1, 16, 4096, 1L << 40}) {
            MemorySegment zeroed = a.allocate(0, alignment);
            MemorySegment uninitialized = a.allocateUninitialized(0, alignment);
            for (MemorySegment empty : List.of(zeroed, uninitialized, a.allocateUninitialized(0))) {
                assertThat(empty.byteSize()).isZero();
                assertThat(empty.address()).as("the empty segment's address").isZero();
                assertThat(empty.isNative()).isTrue();
                assertThat(empty.scope()).as("the allocator's scope").isEqualTo(a.scope());
            }
        }
        MemorySegment empty = a.allocate(0);
        AllocationReport report = a.report();
        assertThat(report.liveAllocations()).as("the empty segment is no allocation").isEqualTo(1);
        assertThat(report.allocatedBytes()).isEqualTo(48);
        assertThat(report.leaks()).allSatisfy(l -> assertThat(l.bytes()).isPositive());
        // its free does nothing, however often
        a.free(empty);
        a.free(empty);
        assertThat(a.report().liveAllocations()).isEqualTo(1);
        assertThat(a.report().problems()).isEmpty();
        a.free(live);
        assertThat(a.allocatedBytes()).isZero();
        a.close();
        assertThat(empty.scope().isAlive()).as("closed with the allocator").isFalse();
        assertThatThrownBy(() -> a.allocate(0)).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        assertThatThrownBy(() -> a.allocateUninitialized(0)).isInstanceOf(IllegalStateException.class);
        assertThatCode(() -> a.free(empty)).doesNotThrowAnyException();
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 16, 48, 100, 4096, 100_000, 300_000})
    void aZeroLengthSliceOfALiveAllocationIsRefusedAndTheAllocationStaysLive(long size) {
        Allocator a = newAllocator();
        MemorySegment s = a.allocateUninitialized(size);
        writePattern(s, size);
        for (long offset : new long[]{0, size / 2, size}) {
            MemorySegment slice = s.asSlice(offset, 0);
            assertThatThrownBy(() -> a.free(slice)).as("a zero-length slice at %d of %d bytes", offset, size)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("0x" + Long.toHexString(slice.address()));
        }
        assertThat(a.allocatedBytes()).isEqualTo(size);
        assertThat(a.report().liveAllocations()).isEqualTo(1);
        assertPattern(s, size);
        a.free(s);
        assertThat(a.allocatedBytes()).isZero();
    }

    @Test
    void zeroLengthSegmentsOfOthersAreRefused() {
        Allocator a = newAllocator();
        assertThatThrownBy(() -> a.free(MemorySegment.NULL)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("0x0");
        assertThatThrownBy(() -> a.free(MemorySegment.ofArray(new byte[0]))).isInstanceOf(IllegalArgumentException.class);
        try (Allocator other = build(null)) {
            MemorySegment theirs = other.allocate(0);
            assertThatThrownBy(() -> a.free(theirs)).isInstanceOf(IllegalArgumentException.class);
        }
        assertThat(a.report().liveAllocations()).isZero();
    }

    // ---------------------------------------------------------------- bad input

    @Test
    void negativeSizeIsRefused() {
        Allocator a = newAllocator();
        assertThatThrownBy(() -> a.allocate(-1)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1");
        assertThatThrownBy(() -> a.allocate(-5, 8)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-5");
        assertThatThrownBy(() -> a.allocateUninitialized(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> a.allocateUninitialized(Long.MIN_VALUE, 16)).isInstanceOf(IllegalArgumentException.class);
        assertThat(a.allocatedBytes()).isZero();
    }

    @ParameterizedTest
    @ValueSource(longs = {0, -1, -16, 3, 12, 48, 4095})
    void alignmentThatIsNotAPowerOfTwoIsRefused(long alignment) {
        Allocator a = newAllocator();
        assertThatThrownBy(() -> a.allocate(16, alignment)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("power of two").hasMessageContaining(Long.toString(alignment));
        assertThatThrownBy(() -> a.allocateUninitialized(16, alignment)).isInstanceOf(IllegalArgumentException.class);
        assertThat(a.allocatedBytes()).isZero();
    }

    @Test
    void foreignSegmentsAreRefused() {
        Allocator a = newAllocator();
        MemorySegment mine = a.allocate(64);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment native_ = arena.allocate(64);
            assertThatThrownBy(() -> a.free(native_)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("did not allocate");
        }
        assertThatThrownBy(() -> a.free(MemorySegment.ofArray(new byte[64]))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> a.free(mine.asSlice(16))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> a.free(null)).isInstanceOf(NullPointerException.class);
        try (Allocator other = build(null)) {
            MemorySegment theirs = other.allocate(64);
            assertThatThrownBy(() -> a.free(theirs)).isInstanceOf(IllegalArgumentException.class);
            other.free(theirs);
        }
        // the allocator is still consistent
        assertThat(a.allocatedBytes()).isEqualTo(64);
        a.free(mine);
        assertThat(a.allocatedBytes()).isZero();
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 40, 3000, 100_000})
    void doubleFreeIsRefused(long size) {
        Allocator a = newAllocator();
        MemorySegment s = a.allocate(size);
        a.free(s);
        assertThatThrownBy(() -> a.free(s)).isInstanceOfAny(doubleFreeException(), IllegalStateException.class,
                IllegalArgumentException.class).hasMessageContaining("free");
        assertThat(a.allocatedBytes()).isZero();
        // still usable, and the block is not handed out twice
        MemorySegment x = a.allocate(size);
        MemorySegment y = a.allocate(size);
        assertThat(x.address()).isNotEqualTo(y.address());
        a.free(x);
        a.free(y);
    }

    @Test
    void budgetRefusesPastItsLimitAndNamesIt() {
        Budget budget = Budget.root("request-42", 4 << 20);
        budgets.add(budget);
        Allocator a = newAllocator(budget);
        MemorySegment ok = a.allocate(1 << 20);
        assertThatThrownBy(() -> a.allocate(8 << 20)).isInstanceOf(BudgetExceededException.class)
                .hasMessageContaining("request-42");
        assertThat(a.allocatedBytes()).isEqualTo(1 << 20);
        a.free(ok);
        MemorySegment again = a.allocate(2 << 20);
        assertThat(budget.used()).isLessThanOrEqualTo(budget.limit());
        a.free(again);
        a.close();
        assertThat(budget.used()).isZero();
    }

    @Test
    void closeReportsLiveAllocationsFreesThemAndInvalidatesEverySegment() {
        Allocator a = newAllocator();
        MemorySegment small = a.allocate(48);
        MemorySegment large = a.allocate(1 << 20);
        MemorySegment freed = a.allocate(16);
        a.free(freed);
        AllocationReport before = a.report();
        assertThat(before.liveAllocations()).isEqualTo(2);
        assertThat(before.allocatedBytes()).isEqualTo(48 + (1 << 20));
        a.close();
        AllocationReport after = a.report();
        assertThat(after.allocatedBytes()).isZero();
        assertThat(after.footprintBytes()).isZero();
        assertThat(after.toString()).contains("2 live allocations");
        if (mode() == DebugMode.FULL) {
            assertThat(after.leaks()).extracting(AllocationReport.Leak::bytes).contains(48L, 1L << 20);
        }
        assertThatThrownBy(() -> small.get(ValueLayout.JAVA_BYTE, 0)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> large.set(ValueLayout.JAVA_BYTE, 0, (byte) 1)).isInstanceOf(IllegalStateException.class);
        assertThat(a.scope().isAlive()).isFalse();
        assertThatThrownBy(() -> a.allocate(16)).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        assertThatThrownBy(() -> a.allocateUninitialized(1 << 20)).isInstanceOf(IllegalStateException.class);
        assertThatCode(() -> a.free(small)).doesNotThrowAnyException();
        assertThatCode(a::close).doesNotThrowAnyException();
    }

    @Test
    void useAfterFreeThrowsInFullMode() {
        Allocator a = newAllocator();
        MemorySegment small = a.allocate(32);
        MemorySegment large = a.allocate(500_000);
        a.free(small);
        a.free(large);
        if (mode() == DebugMode.FULL) {
            assertThatThrownBy(() -> small.get(ValueLayout.JAVA_INT, 0)).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> large.get(ValueLayout.JAVA_INT, 0)).isInstanceOf(IllegalStateException.class);
        } else {
            assertThat(small.scope().isAlive()).as("OFF and SAMPLED share the allocator's scope").isTrue();
        }
    }

    @Test
    void fullModeReportsLeaksBySiteAndThreadAndDoubleFreesWithBothStacks() {
        Allocator a = newAllocator();
        if (mode() != DebugMode.FULL) {
            assertThat(a.report().leaks()).allSatisfy(l -> assertThat(l.count()).isPositive());
            return;
        }
        for (int i = 0; i < 3; i++) {
            a.allocate(100);
        }
        AllocationReport r = a.report();
        assertThat(r.leaks()).hasSize(1);
        AllocationReport.Leak leak = r.leaks().getFirst();
        assertThat(leak.count()).isEqualTo(3);
        assertThat(leak.bytes()).isEqualTo(300);
        assertThat(leak.thread()).isEqualTo(Thread.currentThread().getName());
        assertThat(leak.stack().getFirst().getMethodName())
                .isEqualTo("fullModeReportsLeaksBySiteAndThreadAndDoubleFreesWithBothStacks");
        MemorySegment s = a.allocate(10);
        a.free(s);
        assertThatThrownBy(() -> a.free(s)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("double free").hasMessageContaining("allocated by thread")
                .hasMessageContaining("first freed by thread").hasMessageContaining("freed again");
        assertThat(a.report().problems()).anySatisfy(p -> assertThat(p).contains("double free"));
    }

    // ---------------------------------------------------------------- threads

    @Test
    void closingWhileOtherThreadsAllocateOnlyEverThrowsIllegalStateException() throws Exception {
        Allocator a = newAllocator();
        List<Throwable> unexpected = new CopyOnWriteArrayList<>();
        CountDownLatch running = new CountDownLatch(2);
        java.util.concurrent.atomic.AtomicBoolean closing = new java.util.concurrent.atomic.AtomicBoolean();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 2; t++) {
            long seed = t;
            threads.add(Thread.ofPlatform().start(() -> {
                Random random = new Random(seed);
                running.countDown();
                for (int i = 0; i < 1_000_000; i++) {
                    try {
                        MemorySegment s = a.allocate(random.nextInt(random.nextInt(50) == 0 ? 200_000 : 300));
                        s.fill((byte) 1);
                        a.free(s);
                    } catch (IllegalStateException expected) {
                        if (!closing.get()) {
                            unexpected.add(expected);
                        }
                        return; // closed: every use now throws IllegalStateException
                    } catch (Throwable e) {
                        unexpected.add(e);
                        return;
                    }
                }
            }));
        }
        running.await();
        Thread.sleep(20);
        closing.set(true);
        a.close();
        for (Thread t : threads) {
            t.join();
        }
        assertThat(unexpected).isEmpty();
        assertThatThrownBy(() -> a.allocate(8)).isInstanceOf(IllegalStateException.class);
    }


    @Test
    void threadsAllocateAndFreeEachOthersMemory() throws Exception {
        Allocator a = newAllocator();
        int threads = 4;
        int perThread = mode() == DebugMode.FULL ? 500 : 20_000;
        BlockingQueue<MemorySegment> handoff = new ArrayBlockingQueue<>(1024);
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        CountDownLatch done = new CountDownLatch(threads * 2);
        for (int t = 0; t < threads; t++) {
            long seed = t;
            Thread.ofPlatform().start(() -> {
                try {
                    Random random = new Random(seed);
                    for (int i = 0; i < perThread; i++) {
                        long size = random.nextInt(10) == 0 ? random.nextInt(200_000) : random.nextInt(512);
                        MemorySegment s = random.nextBoolean() ? a.allocate(size) : a.allocateUninitialized(size);
                        if (size >= 16) {
                            s.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, s.address() ^ size);
                            s.set(ValueLayout.JAVA_LONG_UNALIGNED, size - 8, ~s.address());
                        }
                        handoff.put(s);
                    }
                } catch (Throwable e) {
                    failures.add(e);
                } finally {
                    done.countDown();
                }
            });
            Thread.ofPlatform().start(() -> {
                try {
                    for (int i = 0; i < perThread; i++) {
                        MemorySegment s = handoff.poll(30, TimeUnit.SECONDS);
                        if (s == null) {
                            throw new AssertionError("no segment handed over in 30 s");
                        }
                        long size = s.byteSize();
                        if (size >= 16) {
                            assertThat(s.get(ValueLayout.JAVA_LONG_UNALIGNED, 0)).isEqualTo(s.address() ^ size);
                            assertThat(s.get(ValueLayout.JAVA_LONG_UNALIGNED, size - 8)).isEqualTo(~s.address());
                        }
                        a.free(s);
                    }
                } catch (Throwable e) {
                    failures.add(e);
                } finally {
                    done.countDown();
                }
            });
        }
        boolean finished = done.await(100, TimeUnit.SECONDS);
        assertThat(failures).isEmpty();
        assertThat(finished).isTrue();
        assertThat(a.allocatedBytes()).isZero();
        assertThat(a.report().liveAllocations()).isZero();
    }
}
