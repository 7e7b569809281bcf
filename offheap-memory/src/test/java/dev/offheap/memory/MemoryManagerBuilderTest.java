package dev.offheap.memory;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MemoryManagerBuilderTest {
    @TempDir
    Path tempDir;

    private static MemoryManager.Builder quiet() {
        return MemoryManager.builder().registerMBean(false);
    }

    @Test
    void defaults() {
        try (MemoryManager mm = quiet().totalSize(1 << 20).build()) {
            assertThat(mm.type()).isEqualTo(MemoryType.NATIVE);
            assertThat(mm.pageAccess()).isEqualTo(PageAccess.CONFINED);
            assertThat(mm.pageSize()).isEqualTo(MemoryManager.DEFAULT_PAGE_SIZE).isEqualTo(32 * 1024);
            assertThat(mm.totalPages()).isEqualTo(32);
            assertThat(mm.name()).isNotBlank();
            assertThat(mm.allocatedBytes()).as("native memory is obtained on demand").isZero();
            assertThat(mm.budget().limit()).isEqualTo(1 << 20);
            assertThat(mm.budget().path()).isEqualTo(mm.name());
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(ints = {0, -4096, 1, 4095, 6000, 2048, 12288, 65535, 3 << 20, 128 << 20, Integer.MIN_VALUE, Integer.MAX_VALUE})
    void pageSizeThatIsNotAPowerOfTwoOrOutOfRangeIsRejected(int size) {
        assertThatThrownBy(() -> MemoryManager.builder().pageSize(size)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(String.valueOf(size));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(ints = {4096, 8192, 32768, 1 << 20, 64 << 20})
    void pageSizesFrom4KiBTo64MiBAreAccepted(int size) {
        try (MemoryManager mm = quiet().pageSize(size).totalSize(size).build()) {
            assertThat(mm.pageSize()).isEqualTo(size);
            assertThat(mm.totalPages()).isEqualTo(1);
            MemorySegment page = mm.allocatePage("a");
            assertThat(page.byteSize()).isEqualTo(size);
            page.set(ValueLayout.JAVA_LONG, size - 8, 1L);
            mm.release(page);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(longs = {0, -1, -4096, Long.MIN_VALUE})
    void zeroOrNegativeSizeIsRejected(long size) {
        assertThatThrownBy(() -> MemoryManager.builder().totalSize(size)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(String.valueOf(size));
    }

    @Test
    void sizeThatIsNotAMultipleOfThePageSizeIsRejected() {
        assertThatThrownBy(() -> quiet().pageSize(4096).totalSize(10_000).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("10000").hasMessageContaining("4096")
                .hasMessageContaining("8192").hasMessageContaining("12288");
        assertThatThrownBy(() -> quiet().totalSize(4096).build()).as("smaller than the default 32 KiB page")
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void noSizeIsRejected() {
        assertThatThrownBy(() -> quiet().build()).isInstanceOf(IllegalStateException.class).hasMessageContaining("size");
    }

    @Test
    void tooManyPagesIsRejected() {
        assertThatThrownBy(() -> quiet().pageSize(4096).totalSize(4096L * Integer.MAX_VALUE + 4096).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("pages");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(doubles = {0, -0.5, 1.0000001, 2, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY})
    void fractionsOutOfRangeAreRejected(double fraction) {
        assertThatThrownBy(() -> MemoryManager.builder().totalSizeFractionOfHeap(fraction)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MemoryManager.builder().totalSizeFractionOfPhysicalMemory(fraction)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void fractionOfHeapIsRoundedDownToWholePages() {
        long maxHeap = Runtime.getRuntime().maxMemory();
        try (MemoryManager mm = quiet().pageSize(1 << 20).totalSizeFractionOfHeap(0.01).build()) {
            assertThat(mm.totalBytes()).isEqualTo((long) (maxHeap * 0.01) / (1 << 20) * (1 << 20));
            assertThat(mm.totalBytes() % mm.pageSize()).isZero();
        }
        assertThatThrownBy(() -> quiet().pageSize(64 << 20).totalSizeFractionOfHeap(1e-9).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("less than one page");
    }

    @Test
    void fractionOfPhysicalMemoryIsBuiltWithoutTouchingTheMemory() {
        try (MemoryManager mm = quiet().pageSize(64 << 20).totalSizeFractionOfPhysicalMemory(0.001).build()) {
            assertThat(mm.totalBytes()).isPositive();
            assertThat(mm.totalBytes() % mm.pageSize()).isZero();
            assertThat(mm.allocatedBytes()).isZero();
        } catch (IllegalArgumentException e) {
            assertThat(e).hasMessageContaining("less than one page"); // a machine below 64 GiB
        }
    }

    @Test
    void laterSizeSettingReplacesTheEarlierOne() {
        try (MemoryManager mm = quiet().pageSize(4096).totalSizeFractionOfHeap(0.5).totalSize(8192).build()) {
            assertThat(mm.totalBytes()).isEqualTo(8192);
        }
        try (MemoryManager mm = quiet().pageSize(4096).totalSize(8192).totalSizeFractionOfHeap(0.001).build()) {
            assertThat(mm.totalBytes()).isNotEqualTo(8192);
        }
    }

    @Test
    void nullsAndBadNamesAreRejected() {
        assertThatThrownBy(() -> MemoryManager.builder().type(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> MemoryManager.builder().pageAccess(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> MemoryManager.builder().mappedFile(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> MemoryManager.builder().leakReporter(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> MemoryManager.builder().properties(null)).isInstanceOf(NullPointerException.class);
        for (String bad : new String[]{null, "", "  ", "a/b"}) {
            assertThatThrownBy(() -> MemoryManager.builder().name(bad)).as(String.valueOf(bad)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    // ------------------------------------------------------------------ mapped files

    @Test
    void mappedWithoutAFileIsRejected() {
        assertThatThrownBy(() -> quiet().type(MemoryType.MAPPED).pageSize(4096).totalSize(8192).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("mappedFile");
    }

    @Test
    void mappedFileThatIsADirectoryIsRejected() {
        assertThatThrownBy(() -> quiet().type(MemoryType.MAPPED).mappedFile(tempDir).pageSize(4096).totalSize(8192).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("directory");
    }

    @Test
    void mappedFileThatIsTooSmallIsRejectedAndLeftAlone() throws IOException {
        Path file = tempDir.resolve("small.bin");
        try (MemoryManager mm = quiet().type(MemoryType.MAPPED).mappedFile(file).pageSize(4096).totalSize(4096).build()) {
            assertThat(mm.totalPages()).isEqualTo(1);
        }
        assertThatThrownBy(() -> quiet().type(MemoryType.MAPPED).mappedFile(file).pageSize(4096).totalSize(8192).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("made for a memory manager of 4096")
                .hasMessageContaining("8192");
        assertThat(Files.size(file)).isEqualTo(4096 + 4096);
    }

    @Test
    void mappedFileInANonExistentDirectoryIsRejected() {
        Path file = tempDir.resolve("no-such-dir").resolve("pages.bin");
        assertThatThrownBy(() -> quiet().type(MemoryType.MAPPED).mappedFile(file).pageSize(4096).totalSize(8192).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no-such-dir");
        assertThat(Files.exists(file.getParent())).isFalse();
    }

    @Test
    void mappedFileIsCreatedKeptAfterCloseAndAnExistingLargerFileIsUsed() throws IOException {
        Path file = tempDir.resolve("pages.bin");
        try (MemoryManager mm = quiet().type(MemoryType.MAPPED).mappedFile(file).pageSize(4096).totalSize(8192).build()) {
            assertThat(Files.size(file)).as("a 4 KiB header, then the pages").isEqualTo(4096 + 8192);
            assertThat(mm.allocatedBytes()).as("the pages; the header is not mapped").isEqualTo(8192);
            MemorySegment page = mm.allocatePage("a");
            page.set(ValueLayout.JAVA_LONG, 0, 0x1122334455667788L);
            mm.release(page);
        }
        assertThat(Files.exists(file)).isTrue();
        try (MemoryManager mm = quiet().type(MemoryType.MAPPED).mappedFile(file).pageSize(4096).totalSize(4096).build()) {
            assertThat(mm.totalPages()).isEqualTo(1);
        }
    }

    @Test
    void failedMappedBuildRefundsTheParentBudget() throws IOException {
        Path file = tempDir.resolve("small.bin");
        Files.write(file, new byte[100]);
        List<String> leaks = new CopyOnWriteArrayList<>();
        try (Budget parent = Budget.root("process", 1 << 20, leaks::add)) {
            assertThatThrownBy(() -> quiet().type(MemoryType.MAPPED).mappedFile(file).parentBudget(parent)
                    .pageSize(4096).totalSize(8192).build()).isInstanceOf(IllegalArgumentException.class);
            assertThat(parent.used()).isZero();
            assertThat(parent.children()).isEmpty();
        }
        assertThat(leaks).isEmpty();
    }

    // ------------------------------------------------------------------ parent budget

    @Test
    void parentBudgetIsChargedTheWholeSizeAndRefundedOnClose() {
        List<String> leaks = new CopyOnWriteArrayList<>();
        try (Budget process = Budget.root("process", 1 << 20, leaks::add)) {
            MemoryManager mm = quiet().name("sorter").parentBudget(process).pageSize(4096).totalSize(64 * 4096).build();
            assertThat(process.used()).isEqualTo(64 * 4096);
            assertThat(mm.budget().path()).isEqualTo("process/sorter");
            assertThat(mm.budget().parent()).isSameAs(process);
            List<MemorySegment> pages = mm.allocatePages("a", 10);
            assertThat(process.used()).as("use within the manager does not touch the parent").isEqualTo(64 * 4096);
            BudgetExceededException e = MemoryManagerConformanceTest.catchExceeded(() -> mm.allocatePages("a", 55));
            assertThat(e.budgetPath()).isEqualTo("process/sorter");
            mm.release(pages);
            mm.close();
            assertThat(process.used()).isZero();
            assertThat(process.children()).isEmpty();
        }
        assertThat(leaks).isEmpty();
    }

    @Test
    void parentBudgetTooSmallRefusesTheBuild() {
        try (Budget process = Budget.root("process", 100 * 4096)) {
            process.reserve(40 * 4096);
            assertThatThrownBy(() -> quiet().name("greedy").parentBudget(process).pageSize(4096).totalSize(64 * 4096).build())
                    .isInstanceOf(BudgetExceededException.class).hasMessageContaining("process");
            assertThat(process.used()).isEqualTo(40 * 4096);
            assertThat(process.children()).isEmpty();
            process.release(40 * 4096);
        }
    }

    // ------------------------------------------------------------------ properties

    @Test
    void everyPropertyKeyIsRead() {
        Path file = tempDir.resolve("props.bin");
        Properties p = new Properties();
        p.setProperty("offheap.memory.size", "64k");
        p.setProperty("offheap.memory.type", "Mapped");
        p.setProperty("offheap.memory.page-size", "8 KiB");
        p.setProperty("offheap.memory.mapped-file", file.toString());
        p.setProperty("offheap.memory.page-access", "shared");
        p.setProperty("offheap.memory.preallocate", "TRUE");
        p.setProperty("offheap.memory.name", "from-props");
        p.setProperty("offheap.memory.register-mbean", "false");
        p.setProperty("taskmanager.memory.size", "ignored");
        p.setProperty("offheap.other", "ignored");
        try (MemoryManager mm = MemoryManager.builder().properties(p).build()) {
            assertThat(mm.totalBytes()).isEqualTo(64 * 1024);
            assertThat(mm.type()).isEqualTo(MemoryType.MAPPED);
            assertThat(mm.pageSize()).isEqualTo(8192);
            assertThat(mm.pageAccess()).isEqualTo(PageAccess.SHARED);
            assertThat(mm.name()).isEqualTo("from-props");
            assertThat(Files.exists(file)).isTrue();
            assertThat(java.lang.management.ManagementFactory.getPlatformMBeanServer()
                    .queryNames(MemoryManagerMBeanTest.objectNamesOf("from-props"), null)).isEmpty();
        }
        Properties heap = new Properties();
        heap.setProperty("offheap.memory.fraction-of-heap", "0.01");
        heap.setProperty("offheap.memory.type", "heap");
        heap.setProperty("offheap.memory.page-size", "1m");
        heap.setProperty("offheap.memory.register-mbean", "false");
        try (MemoryManager mm = MemoryManager.builder().properties(heap).build()) {
            assertThat(mm.type()).isEqualTo(MemoryType.HEAP);
            assertThat(mm.totalBytes()).isEqualTo((long) (Runtime.getRuntime().maxMemory() * 0.01) / (1 << 20) * (1 << 20));
        }
        Properties physical = new Properties();
        physical.setProperty("offheap.memory.fraction-of-physical", "0.5");
        physical.setProperty("offheap.memory.page-size", "64m");
        physical.setProperty("offheap.memory.preallocate", "false");
        physical.setProperty("offheap.memory.register-mbean", "false");
        try (MemoryManager mm = MemoryManager.builder().properties(physical).build()) {
            assertThat(mm.type()).isEqualTo(MemoryType.NATIVE);
            assertThat(mm.totalBytes()).isPositive();
            assertThat(mm.allocatedBytes()).isZero();
        }
    }

    @Test
    void unknownKeyUnderThePrefixIsRejected() {
        Properties p = new Properties();
        p.setProperty("offheap.memory.sise", "64k");
        assertThatThrownBy(() -> MemoryManager.builder().properties(p)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("offheap.memory.sise").hasMessageContaining("offheap.memory.size");
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', textBlock = """
            size                 | lots
            size                 | 0
            size                 | -5m
            size                 | 99999999999t
            fraction-of-heap     | half
            fraction-of-heap     | 0
            fraction-of-heap     | 1.5
            fraction-of-physical | -1
            type                 | disk
            type                 | ''
            page-size            | 3k
            page-size            | 1k
            page-size            | 128m
            page-size            | 8g
            page-access          | exclusive
            preallocate          | yes
            register-mbean       | 1
            name                 | a/b
            name                 | ''
            """)
    void badPropertyValuesAreRejectedNamingTheKey(String key, String value) {
        Properties p = new Properties();
        p.setProperty("offheap.memory." + key, value);
        assertThatThrownBy(() -> MemoryManager.builder().properties(p)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("offheap.memory." + key);
    }

    @Test
    void propertiesWithoutAnyKeyOfOursChangeNothing() {
        Properties p = new Properties();
        p.setProperty("java.version", "25");
        try (MemoryManager mm = quiet().properties(p).totalSize(32 * 1024).build()) {
            assertThat(mm.type()).isEqualTo(MemoryType.NATIVE);
            assertThat(mm.totalPages()).isEqualTo(1);
        }
    }

    @Test
    void buildTwiceGivesIndependentManagers() {
        MemoryManager.Builder builder = quiet().pageSize(4096).totalSize(8192);
        try (MemoryManager a = builder.build(); MemoryManager b = builder.build()) {
            a.allocatePages("x", 2);
            assertThat(b.freePages()).isEqualTo(2);
            assertThat(a.name()).isNotEqualTo(b.name());
        }
    }

    @Test
    void preallocatedNativeMemoryIsObtainedAtBuild() {
        try (MemoryManager mm = quiet().preallocate(true).pageSize(4096).totalSize(1 << 20).build()) {
            assertThat(mm.allocatedBytes()).isEqualTo(1 << 20);
        }
    }
}
