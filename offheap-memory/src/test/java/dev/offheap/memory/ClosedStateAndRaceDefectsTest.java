package dev.offheap.memory;

import dev.offheap.memory.alloc.DebugMode;
import dev.offheap.memory.alloc.NativeAllocator;
import dev.offheap.memory.alloc.StackAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Closed objects and closes racing other calls: a closed budget's counts, the default stack's close, an
 * allocation racing its allocator's close, a mapped manager's pages filled over a truncated file. Each test
 * failed on the code before its fix.
 */
class ClosedStateAndRaceDefectsTest {
    private static Path dir;
    private static int files;

    @BeforeAll
    static void createDirectory() throws IOException {
        dir = Files.createTempDirectory("closed-state-and-races");
    }

    @AfterAll
    static void deleteDirectory() throws IOException {
        try (var paths = Files.list(dir)) {
            for (Path p : paths.toList()) {
                Files.deleteIfExists(p);
            }
        }
        Files.deleteIfExists(dir);
    }

    // ------------------------------------------------------------------ 1. NativeAllocator: close racing allocate

    /**
     * A large allocation whose malloc is in progress when another thread closes the allocator.
     * Each allocation either completes before close (its segment is then closed by close) or throws the
     * allocator's own "closed" IllegalStateException; nothing stays charged, nothing stays counted.
     */
    @ParameterizedTest
    @EnumSource(value = DebugMode.class, names = {"OFF", "FULL"})
    void anAllocationRacingCloseIsEitherHandedOutAndClosedOrRefusedWithTheAllocatorsOwnMessage(DebugMode mode) {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            SplittableRandom random = new SplittableRandom(20_251_125L);
            for (int round = 0; round < 300; round++) {
                List<String> leaks = new CopyOnWriteArrayList<>();
                Budget budget = Budget.root("race", 1L << 40, leaks::add);
                NativeAllocator allocator = NativeAllocator.builder().budget(budget).debug(mode).name("race-" + round).build();
                // above the own-scope threshold, so that each allocation also makes and registers a scope
                long size = NativeAllocator.OWN_SCOPE_THRESHOLD + 1 + random.nextInt(4 << 20);
                boolean small = random.nextBoolean();
                CyclicBarrier start = new CyclicBarrier(3);
                List<MemorySegment> handedOut = new CopyOnWriteArrayList<>();
                List<Throwable> refusals = new CopyOnWriteArrayList<>();
                // from deep in the stack: in FULL mode the allocation site recorded between the registration of
                // the allocation's scope and its entry in the table then takes long enough for close to pass both
                Runnable allocating = () -> atDepth(800, () -> {
                    await(start);
                    for (int i = 0; i < 50; i++) {
                        try {
                            handedOut.add(allocator.allocateUninitialized(small ? 64 : size));
                        } catch (Throwable t) {
                            refusals.add(t);
                            return;
                        }
                    }
                });
                // threads of their own: the common pool of a two-core machine runs one task at a time
                Thread a = Thread.ofPlatform().start(allocating);
                Thread b = Thread.ofPlatform().start(allocating);
                await(start);
                for (int spins = random.nextInt(2_000); spins > 0; spins--) {
                    Thread.onSpinWait();
                }
                allocator.close();
                assertThat(a.join(Duration.ofSeconds(30))).isTrue();
                assertThat(b.join(Duration.ofSeconds(30))).isTrue();
                assertThat(allocator.allocatedBytes()).as("round %d", round).isZero();
                // a refused allocation whose scope close() had closed already threw from discard's second close
                // of that scope, before the free: the memory stayed allocated, its bytes charged for good
                assertThat(budget.used()).as("round %d: every allocation's bytes are back (refusals: %s)", round, refusals)
                        .isZero();
                for (MemorySegment s : handedOut) {
                    assertThat(s.scope().isAlive()).as("round %d: a segment handed out is closed by close", round).isFalse();
                }
                for (Throwable t : refusals) {
                    // not the JDK's bare "Already closed", which names neither the allocator nor the cause
                    assertThat(t).as("round %d", round).isInstanceOf(IllegalStateException.class)
                            .hasMessageContaining("allocator 'race-" + round + "' is closed");
                }
                budget.close();
                assertThat(leaks).isEmpty();
            }
        });
    }

    private static void atDepth(int depth, Runnable action) {
        if (depth == 0) {
            action.run();
        } else {
            atDepth(depth - 1, action);
        }
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    // ------------------------------------------------------------------ 2. a closed Budget

    /** After close, reserving throws, so nothing is available; and the budget holds nothing of its parent. */
    @Test
    void aClosedBudgetReportsNothingAvailableAndNothingHeldFromItsParent() {
        Budget root = Budget.root("process", 1000, report -> { });
        Budget child = root.child("cache", 600, 200);
        child.reserve(300);
        child.close();

        assertThatThrownBy(() -> child.reserve(1)).isInstanceOf(IllegalStateException.class);
        assertThat(child.available()).as("a closed budget can reserve nothing").isZero();
        assertThat(child.used()).isZero();
        assertThat(child.reserved()).as("close gave its reservation back to the parent").isZero();
        assertThat(root.used()).isZero();
        root.close();
        assertThat(root.available()).isZero();
    }

    /** The same through a memory manager: a closed one offered every page as free, though allocating throws. */
    @Test
    void aClosedMemoryManagerHasNoFreePages() {
        MemoryManager mm = MemoryManager.builder().registerMBean(false).pageSize(4096).totalSize(16 * 4096).build();
        assertThat(mm.freePages()).isEqualTo(16);
        mm.close();
        assertThatThrownBy(() -> mm.allocatePage("owner")).isInstanceOf(IllegalStateException.class);
        assertThat(mm.freePages()).isZero();
    }

    // ------------------------------------------------------------------ 3. the process-wide default stack

    /**
     * DefaultStack() says the default stack is never closed, yet close() closed it and every
     * StackAllocator.push() of the process failed from then on. Closing it must be refused, and push
     * must keep working on every thread.
     */
    @Test
    void closingTheDefaultStackIsRefusedAndPushKeepsWorking() throws Exception {
        StackAllocator shared = StackAllocator.defaultStack();
        assertThatThrownBy(shared::close).isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("default");
        try (StackAllocator.Frame frame = StackAllocator.push()) {
            MemorySegment s = frame.allocate(ValueLayout.JAVA_LONG);
            s.set(ValueLayout.JAVA_LONG, 0, 42);
            assertThat(s.get(ValueLayout.JAVA_LONG, 0)).isEqualTo(42);
        }
        Long fromOtherThread = CompletableFuture.supplyAsync(() -> {
            try (StackAllocator.Frame frame = StackAllocator.push()) {
                return frame.allocate(ValueLayout.JAVA_LONG).get(ValueLayout.JAVA_LONG, 0);
            }
        }).get(30, TimeUnit.SECONDS);
        assertThat(fromOtherThread).isZero();
    }

    // ------------------------------------------------------------------ 4. Segments.fill on mapped pages

    /** Child JVM: a mapped manager with 1 MiB pages, its file truncated, one page filled with Segments.fill. */
    public static final class FillTruncatedManagerPage {
        private FillTruncatedManagerPage() {
        }

        public static void main(String[] args) throws IOException {
            Path file = Path.of(args[0]);
            int pageSize = 1 << 20;
            try (MemoryManager mm = MemoryManager.builder().registerMBean(false).type(MemoryType.MAPPED).mappedFile(file)
                    .pageSize(pageSize).totalSize(4L * pageSize).build()) {
                MemorySegment page = mm.allocatePage("owner");
                try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
                    raf.setLength(0);
                }
                try {
                    Segments.fill(page, 0, page.byteSize(), (byte) 1);
                    System.out.println("RESULT no exception");
                } catch (Throwable t) {
                    System.out.println("RESULT " + t.getClass().getName());
                }
                System.out.flush();
            }
        }
    }

    /**
     * A mapped manager's pages are reinterpreted slices of the mapping, which the JDK makes
     * plain native segments (isMapped() false), so a fill of 1 MiB or more went to memset through the
     * Linker: with the file truncated under it, the JVM died of SIGBUS instead of the JDK's InternalError.
     * Run in a child JVM so that a crash fails this test and not the whole run.
     */
    @Test
    void fillOfAPageOfATruncatedMappedManagerFailsWithTheJdksErrorAndDoesNotCrashTheJvm() {
        SegmentKernelsPropertyTest.assertChildJvmGetsInternalError(dir.resolve("truncated" + (files++)),
                FillTruncatedManagerPage.class);
    }
}
