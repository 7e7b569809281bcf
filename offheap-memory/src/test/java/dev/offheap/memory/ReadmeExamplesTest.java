package dev.offheap.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.offheap.memory.alloc.LargeRegions;
import dev.offheap.memory.alloc.NativeAllocator;
import dev.offheap.memory.alloc.PooledAllocator;
import dev.offheap.memory.alloc.StackAllocator;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Java examples of README.md's "The library" section that use dev.offheap.memory, each run as written
 * (with the names it leaves to the reader filled in) and checked against what the text around it says
 * happens. The cache and JCache examples of the README are run in their own modules' ReadmeExamplesTest.
 */
class ReadmeExamplesTest {

    /** "Budget: exact, nested accounting". */
    @Test
    void aBudgetReservesWithinItsLimitRefusesPastItAndReturnsItsBytesToTheParentOnClose() {
        List<String> leaks = new ArrayList<>();
        Budget outer;
        try (Budget process = Budget.root("process", ByteSize.parse("4g"), leaks::add);
             Budget cache = process.child("cache", ByteSize.parse("1g"))) {
            outer = process;
            cache.reserve(64 << 20);                 // throws BudgetExceededException past the limit
            assertThat(cache.used()).isEqualTo(64L << 20);
            assertThat(process.used()).isEqualTo(64L << 20);
            boolean refused = false;
            if (!cache.tryReserve(ByteSize.parse("2g"))) {
                // refused: nothing was reserved
                refused = true;
            }
            assertThat(refused).isTrue();
            assertThat(cache.used()).as("nothing reserved by the refused tryReserve").isEqualTo(64L << 20);
            assertThat(process.used()).isEqualTo(64L << 20);

            // "a refused request throws BudgetExceededException whose message names the budget, the request,
            // the limit, the use and the biggest users below it"
            try (Budget sorter = cache.child("sorter", ByteSize.parse("1g"))) {
                sorter.reserve(ByteSize.parse("512m"));
                BudgetExceededException refusal = org.junit.jupiter.api.Assertions.assertThrows(
                        BudgetExceededException.class, () -> cache.reserve(ByteSize.parse("512m")));
                assertThat(refusal.budgetPath()).isEqualTo("process/cache");
                assertThat(refusal.requestedBytes()).isEqualTo(512L << 20);
                assertThat(refusal.limitBytes()).isEqualTo(1L << 30);
                assertThat(refusal.usedBytes()).isEqualTo((512L + 64) << 20);
                assertThat(refusal.getMessage()).contains("process/cache").contains(String.valueOf(512L << 20))
                        .contains("limit 1.0 GiB").contains("used 576 MiB").contains("biggest users: sorter 512 MiB");
                sorter.release(ByteSize.parse("512m"));
            }
            cache.release(64 << 20);
            assertThat(cache.used()).isZero();
            assertThat(cache.peak()).isEqualTo((512L + 64) << 20);
        }   // close() returns the bytes to the parent and reports any that were never released
        assertThat(outer.used()).isZero();
        assertThat(leaks).isEmpty();

        try (Budget process = Budget.root("process", ByteSize.parse("4g"), leaks::add)) {
            Budget cache = process.child("cache", ByteSize.parse("1g"));
            cache.reserve(64 << 20);
            cache.close();
            assertThat(process.used()).as("returned to the parent by close").isZero();
            assertThat(leaks).singleElement().asString().contains("process/cache").contains(String.valueOf(64 << 20));
        }
    }

    /** "MemoryManager: pages for owners". */
    @Test
    void pagesAreAllocatedAllOrNoneAndAReleasedPageThrowsThroughItsOldSegment() {
        List<String> leaks = new ArrayList<>();
        MemorySegment released;
        List<MemorySegment> others;
        try (MemoryManager mm = MemoryManager.builder()
                .totalSize(ByteSize.parse("256m"))
                .pageSize(32 * 1024)
                .type(MemoryType.NATIVE)
                .leakReporter(leaks::add)
                .build()) {
            Object owner = "sorter";
            List<MemorySegment> pages = mm.allocatePages(owner, 4);   // all 4, or an exception and none
            assertThat(pages).hasSize(4).allSatisfy(p -> assertThat(p.byteSize()).isEqualTo(32 * 1024));
            MemorySegment page = pages.getFirst();
            page.set(java.lang.foreign.ValueLayout.JAVA_LONG, 0, 42L);
            assertThat(page.get(ValueLayout.JAVA_LONG, 0)).isEqualTo(42L);
            mm.release(page);                                          // back to the pool; old references throw
            assertThatThrownBy(() -> page.get(ValueLayout.JAVA_LONG, 0)).isInstanceOf(IllegalStateException.class);
            assertThat(mm.usedPages()).isEqualTo(3);
            mm.releaseAll(owner);                                      // the other 3
            assertThat(mm.usedPages()).isZero();
            assertThat(pages.get(1).scope().isAlive()).isFalse();

            // "all 4, or an exception and none"
            int total = mm.totalPages();
            assertThatThrownBy(() -> mm.allocatePages("greedy", total + 1)).isInstanceOf(BudgetExceededException.class);
            assertThat(mm.usedPages()).isZero();

            others = mm.allocatePages("kept", 2);
            released = others.getFirst();
        }   // close() frees everything and reports owners that still held pages
        assertThat(released.scope().isAlive()).isFalse();
        assertThat(leaks).singleElement().asString().contains("kept");
    }

    /** "a heap page is a byte[], which takes only unaligned layouts (JAVA_LONG_UNALIGNED: the JAVA_LONG above throws on it)". */
    @Test
    void aHeapPageTakesUnalignedLongsAndRefusesAlignedOnes() {
        try (MemoryManager mm = MemoryManager.builder().totalSize(ByteSize.parse("1m")).type(MemoryType.HEAP)
                .registerMBean(false).build()) {
            MemorySegment page = mm.allocatePage("sorter");
            assertThatThrownBy(() -> page.set(ValueLayout.JAVA_LONG, 0, 42L)).isInstanceOf(IllegalArgumentException.class);
            page.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 42L);
            assertThat(page.get(ValueLayout.JAVA_LONG_UNALIGNED, 0)).isEqualTo(42L);
            mm.release(page);
        }
    }

    /** "A MAPPED manager's file keeps what its pages hold ... force(page) ... writes it to the disk". */
    @Test
    void aMappedManagersForcedPageIsInTheFileAndANewManagerSeesIt(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("pages.bin");
        try (MemoryManager mm = MemoryManager.builder().type(MemoryType.MAPPED)
                .mappedFile(file).totalSize(ByteSize.parse("64m")).registerMBean(false).build()) {
            MemorySegment page = mm.allocatePage("journal");
            page.set(java.lang.foreign.ValueLayout.JAVA_LONG, 0, 42L);
            mm.force(page);                                            // on the device when this returns
        }
        try (MemoryManager again = MemoryManager.builder().type(MemoryType.MAPPED)
                .mappedFile(file).totalSize(ByteSize.parse("64m")).registerMBean(false).build()) {
            List<MemorySegment> pages = again.allocatePages("reader", again.totalPages());
            assertThat(pages.stream().filter(p -> p.get(ValueLayout.JAVA_LONG, 0) == 42L)).hasSize(1);
            again.releaseAll("reader");
        }
    }

    /** "Pages that are used and given back together can be one PageGroup". */
    @Test
    void aPageGroupGivesEveryPageBackAtOnceWhenItCloses() {
        MemorySegment kept;
        try (MemoryManager mm = MemoryManager.builder().totalSize(ByteSize.parse("64m")).build()) {
            try (PageGroup buffer = mm.allocateGroup("sorter", 1024)) {     // all 1024 pages, or none
                MemorySegment first = buffer.page(0);                       // a segment of the group's scope
                first.set(java.lang.foreign.ValueLayout.JAVA_LONG, 0, 42L);
                assertThat(buffer.page(0).get(ValueLayout.JAVA_LONG, 0)).isEqualTo(42L);
                assertThat(mm.usedPages()).isEqualTo(1024);
                kept = first;
            }   // the group closes first: every page back at once, its segments throw from now on
            assertThat(mm.usedPages()).isZero();
            assertThatThrownBy(() -> kept.get(ValueLayout.JAVA_LONG, 0)).isInstanceOf(IllegalStateException.class);
            // "or none": 2048 pages of 32 KiB are 64 MiB, all there is; 2049 are refused
            assertThatThrownBy(() -> mm.allocateGroup("sorter", 2049)).isInstanceOf(BudgetExceededException.class);
            assertThat(mm.usedPages()).isZero();
        }
    }

    /**
     * "Configured from properties". The example's keys, with the mapped file in a temporary folder and the
     * size given by the {@code .size} key its comment offers (a mapped manager allocates every block of its
     * file when built, and a quarter of the machine in /dev/shm is not something a test may take).
     */
    @Test
    void propertiesSetTheTypeTheFileAndThePageSize(@TempDir Path dir) {
        Properties props = new Properties();
        props.setProperty("offheap.memory.size", "4m");                   // or .size=4g, .fraction-of-heap=0.3
        props.setProperty("offheap.memory.type", "mapped");                // heap | native | mapped
        props.setProperty("offheap.memory.mapped-file", dir.resolve("offheap-pages").toString());
        props.setProperty("offheap.memory.page-size", "64k");
        try (MemoryManager mm = MemoryManager.builder().properties(props).registerMBean(false).build()) {
            assertThat(mm.type()).isEqualTo(MemoryType.MAPPED);
            assertThat(mm.pageSize()).isEqualTo(64 * 1024);
            assertThat(mm.totalBytes()).isEqualTo(4L << 20);
            assertThat(dir.resolve("offheap-pages")).exists();
        }
    }

    /** The example's fraction-of-physical, on a native manager (which takes no memory until pages are used). */
    @Test
    void aFractionOfPhysicalMemoryIsRoundedDownToWholePages() {
        Properties props = new Properties();
        props.setProperty("offheap.memory.fraction-of-physical", "0.25");
        props.setProperty("offheap.memory.page-size", "64k");
        long physical = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getTotalMemorySize();
        try (MemoryManager mm = MemoryManager.builder().properties(props).registerMBean(false).build()) {
            assertThat(mm.totalBytes()).isEqualTo((long) (physical * 0.25) / (64 * 1024) * (64 * 1024));
        }
    }

    /**
     * "Spilling": an owner that spills for other threads holds SHARED pages; its callback runs on the thread
     * whose request failed and gives pages back, largest user first, before the request fails.
     */
    @Test
    void aSpillCallbackReleasesAnotherThreadsSharedPagesForTheFailingRequest() throws Exception {
        try (MemoryManager mm = MemoryManager.builder().totalSize(ByteSize.parse("1m")).pageSize(32 * 1024)
                .pageAccess(PageAccess.SHARED).registerMBean(false).build()) {
            List<List<MemorySegment>> inMemoryPartitions = new ArrayList<>();
            AtomicInteger writtenToDisk = new AtomicInteger();
            Thread joiner = Thread.ofPlatform().start(() -> {
                for (int i = 0; i < 4; i++) {
                    inMemoryPartitions.add(mm.allocatePages("hash-join", 8));   // all 32 pages
                }
            });
            joiner.join();
            List<Thread> callbackThreads = new ArrayList<>();

            mm.registerSpillCallback("hash-join", (manager, bytesWanted) -> {
                callbackThreads.add(Thread.currentThread());
                long freed = 0;
                while (freed < bytesWanted && !inMemoryPartitions.isEmpty()) {
                    List<MemorySegment> partition = inMemoryPartitions.removeLast();
                    writtenToDisk.incrementAndGet(); // writeToDisk(partition)
                    manager.release(partition);
                    freed += (long) partition.size() * manager.pageSize();
                }
                return freed;
            });

            List<MemorySegment> sortBuffer = mm.allocatePages("sorter", 10);
            assertThat(sortBuffer).hasSize(10);
            assertThat(callbackThreads).containsOnly(Thread.currentThread());
            assertThat(writtenToDisk.get()).as("partitions of 8 pages spilled for 10 pages").isEqualTo(2);
            assertThat(inMemoryPartitions).hasSize(2);
            assertThat(mm.spillCount()).isEqualTo(1);
            assertThat(mm.spilledBytes()).isEqualTo(16L * 32 * 1024);
            mm.releaseAll("sorter");
            mm.releaseAll("hash-join");
        }
    }

    /** "Each manager is visible in jConsole/VisualVM as dev.offheap:type=MemoryManager,name=&lt;name&gt;". */
    @Test
    void aManagerIsRegisteredUnderItsName() throws Exception {
        try (MemoryManager mm = MemoryManager.builder().totalSize(ByteSize.parse("1m")).name("readme-example").build()) {
            ObjectName name = new ObjectName("dev.offheap:type=MemoryManager,name=readme-example");
            assertThat(ManagementFactory.getPlatformMBeanServer().isRegistered(name)).isTrue();
            assertThat(ManagementFactory.getPlatformMBeanServer().getAttribute(name, "TotalPages")).isEqualTo(mm.totalPages());
        }
    }

    /**
     * "Pooled and stack allocators register an MBean, dev.offheap:type=Allocator,name=&lt;name&gt; (native ones
     * when built with registerMBean(true))".
     */
    @Test
    void pooledAndStackAllocatorsRegisterTheirBeanAndNativeOnesOnlyWhenAsked() throws Exception {
        var server = ManagementFactory.getPlatformMBeanServer();
        try (PooledAllocator pool = PooledAllocator.builder().name("readme-pooled").build();
             StackAllocator stack = StackAllocator.builder().name("readme-stack").build();
             NativeAllocator quiet = NativeAllocator.builder().name("readme-native-quiet").build();
             NativeAllocator registered = NativeAllocator.builder().name("readme-native").registerMBean(true).build()) {
            assertThat(server.isRegistered(new ObjectName("dev.offheap:type=Allocator,name=" + pool.name()))).isTrue();
            assertThat(server.isRegistered(new ObjectName("dev.offheap:type=Allocator,name=" + stack.name()))).isTrue();
            assertThat(server.isRegistered(new ObjectName("dev.offheap:type=Allocator,name=readme-native-quiet"))).isFalse();
            assertThat(server.isRegistered(new ObjectName("dev.offheap:type=Allocator,name=readme-native"))).isTrue();
            assertThat(quiet.allocatedBytes() + registered.allocatedBytes()).isZero();
        }
    }

    /** "Segments: helpers for algorithms on pages". */
    @Test
    void segmentsCompareSwapHashAndWriteAsDescribed() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment page = arena.allocate(4096);
            MemorySegment other = MemorySegment.ofArray(new byte[4096]);
            long key = 0x0102_0304_0506_0708L;
            byte[] staging = "staged bytes".getBytes(StandardCharsets.US_ASCII);
            Segments.putLongBE(other, 0, 0x0102_0304_0506_0709L);

            Segments.putLongBE(page, 0, key);                       // normalized key: byte order = numeric order
            assertThat(page.get(ValueLayout.JAVA_BYTE, 0)).isEqualTo((byte) 0x01);
            int order = Segments.compareUnsigned(page, 0, other, 0, 16);
            assertThat(order).as("0x..08 before 0x..09").isNegative();
            page.set(ValueLayout.JAVA_LONG_UNALIGNED, 64, 7L);
            Segments.swap(page, 0, page, 64, 16);                   // swap two 16-byte records
            assertThat(Segments.getLongBE(page, 64)).isEqualTo(key);
            assertThat(page.get(ValueLayout.JAVA_LONG_UNALIGNED, 0)).isEqualTo(7L);
            long hash = Segments.hash64(page, 0, 16);
            assertThat(Segments.hash64(other.asSlice(0, 16).fill((byte) 0).copyFrom(page.asSlice(0, 16)), 0, 16))
                    .as("the same bytes on the heap hash the same").isEqualTo(hash);
            Segments.writeBytes(page, 128, staging, 0, staging.length); // many single bytes: stage, then copy
            assertThat(page.asSlice(128, staging.length).toArray(ValueLayout.JAVA_BYTE)).isEqualTo(staging);
        }
    }

    /** "Allocators: variable-size native memory". */
    @Test
    void theAllocatorsAllocateFreeAndPopAsDescribed() {
        try (Budget cache = Budget.root("cache", 1L << 30)) {
            // Pooled: any size, freed in any order from any thread; per-thread caches, shrinks when idle
            try (PooledAllocator pool = PooledAllocator.builder().budget(cache).build()) {
                MemorySegment buffer = pool.allocateUninitialized(4096);
                MemorySegment key = pool.allocateFrom("user:42");
                assertThat(key.getString(0)).isEqualTo("user:42");
                assertThat(cache.used()).as("charged per 64 KiB unit held").isPositive();
                assertThat(pool.allocatedBytes()).isGreaterThanOrEqualTo(4096 + 8);
                MemorySegment other = pool.allocateUninitialized(100_000);
                Thread freer = Thread.ofPlatform().start(() -> pool.free(other));
                try {
                    freer.join();
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
                pool.free(buffer);                       // any thread
                long footprint = pool.footprintBytes();
                long charged = cache.used();
                pool.trim();                             // give cached memory back now
                assertThat(pool.footprintBytes()).as("footprint after trim").isLessThan(footprint);
                assertThat(cache.used()).as("budget after trim").isLessThan(charged);
                assertThat(pool.report().liveAllocations()).as("the key is still live").isEqualTo(1);
            }                                            // frees the rest; live allocations are reported
            assertThat(cache.used()).as("the pool's units given back on close").isZero();
        }

        // Stack: per-thread frames, everything popped at once
        StackAllocator.Frame popped;
        try (StackAllocator.Frame frame = StackAllocator.push()) {
            MemorySegment path = frame.allocateFrom("/etc/hosts");
            MemorySegment out = frame.allocate(ValueLayout.JAVA_LONG);
            assertThat(path.getString(0)).isEqualTo("/etc/hosts");
            assertThat(out.get(ValueLayout.JAVA_LONG, 0)).as("allocate zeroes").isZero();
            popped = frame;
        }
        assertThat(popped.scope().isAlive()).as("the frame is popped").isFalse();

        // Native: malloc/free, or mimalloc (Debian package libmimalloc2.0) when installed
        try (NativeAllocator c = NativeAllocator.isMimallocAvailable() ? NativeAllocator.mimalloc() : NativeAllocator.malloc()) {
            MemorySegment s = c.allocate(100);
            assertThat(s.byteSize()).isEqualTo(100);
            assertThat(c.allocatedBytes()).isEqualTo(100);
            c.free(s);
            assertThat(c.allocatedBytes()).isZero();
        }

        // A large region read at random (a hash table): mapped on 2 MiB boundaries, on huge pages where
        // Linux offers them (transparent_hugepage = madvise or always); unmapped when the arena closes
        MemorySegment unmapped;
        try (Arena arena = Arena.ofShared()) {
            MemorySegment table = LargeRegions.allocate(1L << 30, arena);   // zeroed, committed as touched
            assertThat(table.byteSize()).isEqualTo(1L << 30);
            assertThat(table.address() % LargeRegions.HUGE_PAGE_BYTES).isZero();
            assertThat(table.get(ValueLayout.JAVA_LONG, (1L << 30) - 8)).isZero();
            unmapped = table;
        }
        assertThatThrownBy(() -> unmapped.get(ValueLayout.JAVA_LONG, 0)).isInstanceOf(IllegalStateException.class);
    }
}
