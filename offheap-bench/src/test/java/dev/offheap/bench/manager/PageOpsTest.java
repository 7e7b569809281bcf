package dev.offheap.bench.manager;

import static org.assertj.core.api.Assertions.assertThat;

import dev.offheap.memory.MemoryManager;
import dev.offheap.memory.PageAccess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every way of getting a page that the manager benchmarks measure works, here, on this JDK. */
class PageOpsTest {
    private static final int PAGE = 32 * 1024;

    private static long expectedSum(int count) {
        return count == 1 ? 1 : (long) count * (count - 1) / 2;
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 64})
    void flinksOffHeapPagesWorkOnThisJdk(int count) {
        assertThat(PageOps.flink(PAGE, count, this)).isEqualTo(expectedSum(count));
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 64})
    void arenasPerPage(int count) {
        assertThat(PageOps.confinedArenas(PAGE, count)).isEqualTo(expectedSum(count));
        assertThat(PageOps.sharedArenas(PAGE, count)).isEqualTo(expectedSum(count));
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 64})
    void managerPagesComeBack(int count) {
        for (PageAccess access : PageAccess.values()) {
            try (MemoryManager manager = PageOps.nativeManager("test-" + access, 128L * PAGE, PAGE, access)) {
                for (int round = 0; round < 3; round++) {
                    assertThat(PageOps.manager(manager, count, this)).isEqualTo(expectedSum(count));
                }
                assertThat(manager.usedPages()).isZero();
            }
        }
    }

    @Test
    void touchWritesFirstAndLastLong() {
        try (var arena = java.lang.foreign.Arena.ofConfined()) {
            var page = arena.allocate(PAGE);
            PageOps.touch(page, 7L);
            assertThat(page.get(java.lang.foreign.ValueLayout.JAVA_LONG, 0)).isEqualTo(7L);
            assertThat(page.get(java.lang.foreign.ValueLayout.JAVA_LONG, PAGE - 8)).isEqualTo(7L);
        }
    }
}
