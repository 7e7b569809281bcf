package dev.offheap.memory;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Budget and MemoryManager where other threads race them or the system refuses: releases overlapping
 * close, sizes read while they change, failed builds and chunks, spills that only quarantine, and
 * conflicting configuration. Each test failed on the code before its fix.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ManagerBudgetRaceAndFailureTest {

    /**
     * release and releaseReservation do nothing after close(); one that overlapped close() threw
     * IllegalStateException instead, as if the caller had released twice or more than it held: close had
     * revoked the page ("already released (double release)") or forgotten the owner ("holds 0") after the
     * call's own check of closed. The rounds also check that close() itself never throws and that the
     * parent budget gets everything back.
     */
    @Test
    void closeRacingReturnsOfPagesAndReservedBytesNeitherThrowsNorKeepsTheParentCharged() throws Exception {
        int closeFailures = 0;
        int returnFailures = 0;
        int parentsCharged = 0;
        Set<String> failures = new ConcurrentSkipListSet<>();
        for (int round = 0; round < 1_000; round++) {
            Budget parent = Budget.root("parent", 1 << 24, r -> { });
            MemoryManager mm = MemoryManager.builder().registerMBean(false).leakReporter(r -> { }).type(MemoryType.HEAP)
                    .parentBudget(parent).pageSize(4096).totalSize(1 << 20).build();
            List<MemorySegment> pages = mm.allocatePages("p", 200);
            mm.reserve("r", 100_000);
            AtomicReference<Throwable> returnFailure = new AtomicReference<>();
            CountDownLatch started = new CountDownLatch(3);
            List<Thread> returners = new ArrayList<>();
            for (int t = 0; t < 3; t++) {
                int first = t;
                returners.add(Thread.ofPlatform().daemon().start(() -> {
                    started.countDown();
                    try {
                        for (int i = first; i < pages.size(); i += 3) {
                            mm.releaseReservation("r", 1);
                            mm.release(pages.get(i)); // heap pages: any thread may release them
                        }
                        for (int i = 0; i < 1_000; i++) {
                            mm.releaseReservation("r", 1); // after close: does nothing
                        }
                    } catch (Throwable e) {
                        returnFailure.set(e);
                    }
                }));
            }
            started.await();
            for (int spin = (round % 60) * 20; spin > 0; spin--) {
                Thread.onSpinWait();
            }
            try {
                mm.close();
            } catch (RuntimeException e) {
                failures.add("close: " + e.getMessage().replaceAll("\\d+", "N"));
                closeFailures++;
            }
            for (Thread returner : returners) {
                returner.join(10_000);
            }
            if (returnFailure.get() != null) {
                failures.add("return: " + returnFailure.get().getMessage().replaceAll("\\d+", "N"));
                returnFailures++;
            }
            if (parent.used() != 0) {
                parentsCharged++;
            }
        }
        assertThat(List.of(closeFailures, returnFailures, parentsCharged))
                .as("rounds in which close() threw, a return threw, the parent stayed charged: " + failures)
                .containsOnly(0);
    }

    /**
     * The failure message sorted the children by their live reserved(): with more than 32 children
     * (where the JDK's merge sort checks its comparator) that other threads change meanwhile, the sort
     * could throw IllegalArgumentException ("Comparison method violates its general contract!") instead
     * of the BudgetExceededException the caller expects.
     */
    @Test
    void theFailureMessageIsBuiltWhileOtherThreadsChangeTheChildren() throws Exception {
        Budget root = Budget.root("root", 1L << 40, r -> { });
        List<Budget> children = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
            children.add(root.child("c" + i, 1L << 30));
        }
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> changers = new ArrayList<>();
        for (int t = 0; t < 2; t++) {
            long seed = 42 + t;
            List<Budget> own = children.subList(t * 1_000, (t + 1) * 1_000);
            changers.add(Thread.ofPlatform().daemon().start(() -> {
                Random random = new Random(seed);
                long[] held = new long[own.size()];
                while (!stop.get()) {
                    int i = random.nextInt(own.size());
                    Budget child = own.get(i);
                    if (held[i] > 0) {
                        child.release(held[i]);
                        held[i] = 0;
                    } else {
                        long bytes = 1 + random.nextInt(1 << 20);
                        if (child.tryReserve(bytes)) {
                            held[i] = bytes;
                        }
                    }
                }
            }));
        }
        List<Throwable> wrong = new ArrayList<>();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        try {
            while (System.nanoTime() < end && wrong.isEmpty()) {
                try {
                    root.reserve(1L << 41);
                } catch (BudgetExceededException expected) {
                    // the documented failure
                } catch (RuntimeException other) {
                    wrong.add(other);
                }
            }
        } finally {
            stop.set(true);
            for (Thread changer : changers) {
                changer.join(10_000);
            }
        }
        assertThat(wrong).as("exceptions other than BudgetExceededException").isEmpty();
    }

    /** The same for the manager's owners: usageByOwner() (and the MXBean) sorted by live reservations. */
    @Test
    void usageByOwnerIsReadWhileOtherThreadsReserveAndRelease() throws Exception {
        try (MemoryManager mm = MemoryManager.builder().registerMBean(false).leakReporter(r -> { })
                .pageSize(MemoryManager.MAX_PAGE_SIZE).totalSize(1L << 40).build()) {
            for (int i = 0; i < 2_000; i++) {
                mm.reserve("o" + i, 1 + i);
            }
            AtomicBoolean stop = new AtomicBoolean();
            List<Thread> changers = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                long seed = 7 + t;
                int first = t * 1_000;
                changers.add(Thread.ofPlatform().daemon().start(() -> {
                    Random random = new Random(seed);
                    long[] held = new long[1_000];
                    while (!stop.get()) {
                        int i = random.nextInt(held.length);
                        String owner = "o" + (first + i);
                        if (held[i] > 0) {
                            mm.releaseReservation(owner, held[i]);
                            held[i] = 0;
                        } else {
                            held[i] = 1 + random.nextInt(1 << 20);
                            mm.reserve(owner, held[i]);
                        }
                    }
                }));
            }
            List<Throwable> wrong = new ArrayList<>();
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            try {
                while (System.nanoTime() < end && wrong.isEmpty()) {
                    try {
                        assertThat(mm.usageByOwner()).hasSize(2_000);
                    } catch (RuntimeException e) {
                        wrong.add(e);
                    }
                }
            } finally {
                stop.set(true);
                for (Thread changer : changers) {
                    changer.join(10_000);
                }
            }
            assertThat(wrong).as("exceptions from usageByOwner()").isEmpty();
        }
    }

    /**
     * The manager's budget was taken from the parent before the page tables were made: a build that then
     * failed for want of heap (a table of 2^30 pages here) left the parent charged the whole size for good.
     */
    @Test
    void aBuildThatRunsOutOfHeapForItsTablesGivesTheParentItsBytesBack() {
        Budget parent = Budget.root("parent", 1L << 50, r -> { });
        assertThatThrownBy(() -> MemoryManager.builder().registerMBean(false).parentBudget(parent)
                .pageSize(4096).totalSize(1L << 42).build()).isInstanceOf(OutOfMemoryError.class);
        assertThat(parent.used()).as("bytes the parent is still charged").isZero();
        assertThat(parent.children()).isEmpty();
    }

    /**
     * A spill callback that releases its owner from the requester's thread cannot revoke pages confined
     * to the owner's live thread: they are quarantined, not given back. spilledBytes() and the Spill
     * event counted them as given back, though the request still failed for want of them.
     */
    @Test
    void pagesQuarantinedByASpillCallbackAreNotCountedAsSpilled() throws Exception {
        try (MemoryManager mm = MemoryManager.builder().registerMBean(false).leakReporter(r -> { })
                .pageSize(4096).totalSize(8 * 4096).build()) {
            CountDownLatch allocated = new CountDownLatch(1);
            CountDownLatch done = new CountDownLatch(1);
            Thread holder = Thread.ofPlatform().daemon().start(() -> {
                mm.allocatePages("holder", 8);
                allocated.countDown();
                try {
                    done.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            allocated.await();
            try {
                mm.registerSpillCallback("holder", (m, wanted) -> {
                    m.releaseAll("holder");
                    return wanted;
                });
                assertThatThrownBy(() -> mm.allocatePage("requester")).isInstanceOf(BudgetExceededException.class)
                        .hasMessageContaining("gave back 0 B");
                assertThat(mm.quarantinedPages()).isEqualTo(8);
                assertThat(mm.spillCount()).isEqualTo(1);
                assertThat(mm.spilledBytes()).as("bytes given back by spill callbacks").isZero();
            } finally {
                done.countDown();
                holder.join(10_000);
            }
        }
    }
    /**
     * "Each final refusal a dev.offheap.PageAllocationFailed event" (docs/memory.md): a request for more
     * pages than the manager has was refused and counted in allocationFailures(), but recorded no event.
     */
    @Test
    void aRequestForMorePagesThanTheManagerHasIsRecordedAsAFailedAllocation() throws Exception {
        Path dump = Files.createTempFile("manager-failure", ".jfr");
        try {
            try (Recording recording = new Recording()) {
                recording.enable("dev.offheap.PageAllocationFailed");
                recording.start();
                try (MemoryManager mm = MemoryManager.builder().name("failure-jfr").registerMBean(false)
                        .pageSize(4096).totalSize(4 * 4096).build()) {
                    assertThatThrownBy(() -> mm.allocatePages("greedy", 5)).isInstanceOf(BudgetExceededException.class);
                    assertThat(mm.allocationFailures()).isEqualTo(1);
                }
                recording.stop();
                recording.dump(dump);
            }
            List<RecordedEvent> failed = RecordingFile.readAllEvents(dump).stream()
                    .filter(e -> e.getEventType().getName().equals("dev.offheap.PageAllocationFailed"))
                    .filter(e -> "failure-jfr".equals(e.getString("manager"))).toList();
            assertThat(failed).hasSize(1);
            assertThat(failed.getFirst().getString("owner")).isEqualTo("greedy");
            assertThat(failed.getFirst().getLong("requestedBytes")).isEqualTo(5 * 4096);
        } finally {
            Files.deleteIfExists(dump);
        }
    }

    /** A size near Long.MAX_VALUE that is not a multiple of the page size: the message offered a negative size. */
    @Test
    void theMessageForASizeThatIsNotAMultipleNeverOffersANegativeSize() {
        assertThatThrownBy(() -> MemoryManager.builder().totalSize(Long.MAX_VALUE).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a multiple of the page size")
                .hasMessageNotContaining("-");
    }

    /**
     * size, fraction-of-heap and fraction-of-physical each set the size, and were applied in the order
     * of a hash set: with size=64m and a fraction given too, the fraction won and the 64m was silently
     * ignored. Conflicting keys are now refused, naming them.
     */
    @Test
    void propertiesThatSetTheSizeTwiceAreRefused() {
        Properties p = new Properties();
        p.setProperty("offheap.memory.size", "64m");
        p.setProperty("offheap.memory.fraction-of-heap", "0.01");
        p.setProperty("offheap.memory.register-mbean", "false");
        assertThatThrownBy(() -> MemoryManager.builder().properties(p).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("offheap.memory.size").hasMessageContaining("offheap.memory.fraction-of-heap");
    }
    /**
     * A child created while its parent closes must either be closed with the parent or be refused with
     * IllegalStateException. child() took the reservation, then added the child to the parent's set: a
     * close() in between returned the reservation to the grandparent with everything else, missed the child,
     * and left it open, spending bytes within a reservation that nobody above it counted any more.
     */
    @Test
    void aChildCreatedWhileItsParentClosesIsClosedWithItOrRefused() throws Exception {
        AtomicReference<Budget> offered = new AtomicReference<>();
        AtomicReference<Object> created = new AtomicReference<>();
        AtomicBoolean stop = new AtomicBoolean();
        Thread creator = Thread.ofPlatform().daemon().start(() -> {
            while (!stop.get()) {
                Budget parent = offered.getAndSet(null);
                if (parent == null) {
                    Thread.onSpinWait();
                    continue;
                }
                try {
                    created.set(parent.child("c", 100, 100));
                } catch (IllegalStateException closed) {
                    created.set(closed);
                }
            }
        });
        int orphans = 0;
        try {
            Random random = new Random(11);
            for (int round = 0; round < 20_000 && orphans == 0; round++) {
                Budget root = Budget.root("root", 1_000, r -> { });
                Budget parent = root.child("p", 1_000);
                created.set(null);
                offered.set(parent);
                for (int spin = random.nextInt(200); spin > 0; spin--) {
                    Thread.onSpinWait();
                }
                parent.close();
                while (created.get() == null) {
                    Thread.onSpinWait();
                }
                if (created.get() instanceof Budget child && !child.isClosed()) {
                    orphans++;
                }
            }
        } finally {
            stop.set(true);
            creator.join(10_000);
        }
        assertThat(orphans).as("children left open after their parent closed").isZero();
    }
    /**
     * When the system refused a new 16 MiB chunk (OutOfMemoryError), the pages the budget had admitted for
     * the request, and the slots already popped for it, were never given back: every such failure lost
     * them for good, so a manager with nothing held reported them used. Shown in a child JVM whose address
     * space is capped (setrlimit) just above what it uses, so that the second chunk cannot be had.
     */
    @Test
    void aChunkTheSystemRefusesLeavesNothingReservedInTheBudget() throws Exception {
        Assumptions.assumeTrue(System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("linux"),
                "caps the address space with setrlimit and reads /proc");
        ProcessBuilder child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-Xint", "-XX:+UseSerialGC", "-Xmx64m",
                "-cp", System.getProperty("java.class.path"), ChunkRefusedInChild.class.getName())
                .redirectErrorStream(true);
        child.environment().put("MALLOC_ARENA_MAX", "1"); // one malloc arena: a new chunk needs new address space
        Process process = child.start();
        String out = new String(process.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        Assumptions.assumeTrue(out.contains("refused: "), "the capped child obtained the chunk anyway: " + out);
        assertThat(out).as(out).contains("after releaseAll: used 0 bytes, 16384 free pages");
    }

    /** The child of {@link #aChunkTheSystemRefusesLeavesNothingReservedInTheBudget}. */
    public static final class ChunkRefusedInChild {
        @SuppressWarnings("restricted")
        public static void main(String[] args) throws Throwable {
            try (MemoryManager mm = MemoryManager.builder().registerMBean(false).leakReporter(r -> { })
                    .pageSize(4096).totalSize(64L << 20).build()) {
                mm.allocatePages("a", 4096); // the first 16 MiB chunk, obtained before the cap
                java.lang.foreign.Linker linker = java.lang.foreign.Linker.nativeLinker();
                java.lang.invoke.MethodHandle setrlimit = linker.downcallHandle(
                        linker.defaultLookup().find("setrlimit").orElseThrow(), java.lang.foreign.FunctionDescriptor.of(
                                java.lang.foreign.ValueLayout.JAVA_INT, java.lang.foreign.ValueLayout.JAVA_INT,
                                java.lang.foreign.ValueLayout.ADDRESS));
                long vmSize = Files.readAllLines(Path.of("/proc/self/status")).stream()
                        .filter(line -> line.startsWith("VmSize:")).mapToLong(line -> Long.parseLong(
                                line.replaceAll("\\D", "")) << 10).findFirst().orElseThrow();
                try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
                    MemorySegment limit = arena.allocate(16);
                    limit.set(java.lang.foreign.ValueLayout.JAVA_LONG, 0, vmSize + (8 << 20)); // RLIMIT_AS soft
                    limit.set(java.lang.foreign.ValueLayout.JAVA_LONG, 8, -1L); // hard: unlimited, as before
                    int rc = (int) setrlimit.invokeExact(9, limit); // RLIMIT_AS
                    System.out.println("setrlimit " + rc);
                }
                try {
                    mm.allocatePages("b", 64); // past the first chunk: needs the second
                    System.out.println("obtained");
                } catch (OutOfMemoryError e) {
                    System.out.println("refused: " + e.getMessage());
                }
                try {
                    mm.allocatePage("b");
                    System.out.println("obtained");
                } catch (OutOfMemoryError e) {
                    System.out.println("refused: " + e.getMessage());
                }
                mm.releaseAll("a");
                mm.releaseAll("b");
                System.out.println("after releaseAll: used " + mm.usedBytes() + " bytes, " + mm.freePages() + " free pages");
            }
        }
    }
}
