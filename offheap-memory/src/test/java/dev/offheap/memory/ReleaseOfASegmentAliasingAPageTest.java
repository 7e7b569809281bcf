package dev.offheap.memory;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link MemoryManager#release(MemorySegment)} of a segment that lies over a page still held but is not that
 * page's segment: one made from its address ({@code MemorySegment.ofAddress(page.address()).reinterpret(size)}),
 * or the page reinterpreted into a scope of another arena. It has the page's address and size, so it passes
 * for the page until its scope is compared. Before the fix the release then threw IllegalStateException
 * claiming a double release of a page that nobody had released; it must throw IllegalArgumentException (the
 * segment is not a page of the manager), and the page must stay held and usable, and be released as usual.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReleaseOfASegmentAliasingAPageTest {
    private static final int PAGE = 4096;

    private static MemoryManager newManager(PageAccess access) {
        return MemoryManager.builder().registerMBean(false).leakReporter(report -> { })
                .pageAccess(access).pageSize(PAGE).totalSize(8L * PAGE).build();
    }

    @SuppressWarnings("restricted")
    private static MemorySegment overItsAddress(MemorySegment page) {
        return MemorySegment.ofAddress(page.address()).reinterpret(page.byteSize());
    }

    /** Releasing {@code alias} is refused as not a page, both alone and in a collection, and changes nothing. */
    private static void assertNotAPage(MemoryManager mm, MemorySegment alias) {
        assertThatThrownBy(() -> mm.release(alias)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a page of memory manager '" + mm.name() + "'")
                .hasMessageNotContaining("double release");
        assertThatThrownBy(() -> mm.release(List.of(alias))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a page of memory manager '" + mm.name() + "'")
                .hasMessageNotContaining("double release");
    }

    /** The page is still held and usable, and is released as usual, once (a second release is a double release). */
    private static void assertStillHeldAndReleasable(MemoryManager mm, MemorySegment page, int value) {
        assertThat(mm.usedPages()).isEqualTo(1);
        assertThat(page.get(ValueLayout.JAVA_INT, 0)).isEqualTo(value);
        page.set(ValueLayout.JAVA_INT, PAGE - 4, value + 1);
        assertThat(page.get(ValueLayout.JAVA_INT, PAGE - 4)).isEqualTo(value + 1);
        mm.release(page);
        assertThat(mm.usedPages()).isZero();
        assertThat(mm.freePages()).isEqualTo(8);
        assertThatThrownBy(() -> page.get(ValueLayout.JAVA_INT, 0)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> mm.release(page)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("double release");
    }

    @ParameterizedTest
    @EnumSource(PageAccess.class)
    void aSegmentMadeFromAPagesAddressIsNotAPage(PageAccess access) {
        try (MemoryManager mm = newManager(access)) {
            MemorySegment page = mm.allocatePage("a");
            page.set(ValueLayout.JAVA_INT, 0, 17);
            MemorySegment alias = overItsAddress(page);
            assertThat(alias.byteSize()).isEqualTo(page.byteSize());
            assertThat(alias.address()).isEqualTo(page.address());

            assertNotAPage(mm, alias);

            assertStillHeldAndReleasable(mm, page, 17);
        }
    }

    @ParameterizedTest
    @EnumSource(PageAccess.class)
    @SuppressWarnings("restricted")
    void aPageReinterpretedIntoAnotherArenasScopeIsNotAPage(PageAccess access) {
        try (MemoryManager mm = newManager(access); Arena other = Arena.ofConfined()) {
            MemorySegment page = mm.allocatePage("a");
            page.set(ValueLayout.JAVA_INT, 0, 23);
            MemorySegment alias = page.reinterpret(other, null);

            assertNotAPage(mm, alias);

            assertStillHeldAndReleasable(mm, page, 23);
        }
    }

    @ParameterizedTest
    @EnumSource(PageAccess.class)
    void slicesOfAPageAreNotPages(PageAccess access) {
        try (MemoryManager mm = newManager(access)) {
            MemorySegment page = mm.allocatePage("a");
            page.set(ValueLayout.JAVA_INT, 0, 31);

            assertNotAPage(mm, page.asSlice(0, PAGE / 2));
            assertNotAPage(mm, page.asSlice(PAGE / 2));
            assertNotAPage(mm, overItsAddress(page).asSlice(0, PAGE / 2));

            assertStillHeldAndReleasable(mm, page, 31);
        }
    }

    @ParameterizedTest
    @EnumSource(PageAccess.class)
    void aSegmentMadeFromTheAddressOfAGroupsPageIsNotAPage(PageAccess access) {
        try (MemoryManager mm = newManager(access)) {
            PageGroup group = mm.allocateGroup("a", 2);
            group.page(1).set(ValueLayout.JAVA_INT, 0, 5);

            assertNotAPage(mm, overItsAddress(group.page(1)));

            assertThat(group.isAlive()).isTrue();
            assertThat(mm.usedPages()).isEqualTo(2);
            assertThat(group.page(1).get(ValueLayout.JAVA_INT, 0)).isEqualTo(5);
            group.close();
            assertThat(mm.freePages()).isEqualTo(8);
        }
    }

    /** What the fix must keep: the stale segment of a page that was released and leased again is a double release. */
    @ParameterizedTest
    @EnumSource(PageAccess.class)
    void theStaleSegmentOfAPageLeasedAgainIsStillADoubleRelease(PageAccess access) {
        try (MemoryManager mm = newManager(access)) {
            MemorySegment stale = mm.allocatePage("a");
            mm.release(stale);
            MemorySegment again = mm.allocatePage("b");
            assertThat(again.address()).as("the same page, from the thread's cache").isEqualTo(stale.address());
            again.set(ValueLayout.JAVA_INT, 0, 41);

            assertThatThrownBy(() -> mm.release(stale)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("double release");

            assertStillHeldAndReleasable(mm, again, 41);
        }
    }
}
