package dev.offheap.memory;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A {@link PageAccess#CONFINED} page group whose allocating thread has ended, released by another thread
 * through {@link MemoryManager#releaseAll} or {@link MemoryManager#close()}. The JDK cannot close the group's
 * confined scope from that other thread, so the scope stays open for good; the group must still say it is
 * released. Before the fix it kept reporting itself alive and {@link PageGroup#page(int)} kept handing out
 * segments over pages that had gone back to the manager (and to other owners), where a group closed by
 * {@link PageGroup#close()} in the same situation already said released.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConfinedGroupOfAnEndedThreadTest {
    private static final int PAGE = 4096;

    @TempDir
    Path tempDir;

    private final List<String> leaks = new CopyOnWriteArrayList<>();

    private MemoryManager newManager(MemoryType type, int pages) {
        MemoryManager.Builder builder = MemoryManager.builder().registerMBean(false).leakReporter(leaks::add)
                .pageAccess(PageAccess.CONFINED).pageSize(PAGE).totalSize((long) pages * PAGE).type(type);
        if (type == MemoryType.MAPPED) {
            builder.mappedFile(tempDir.resolve("pages.bin"));
        }
        return builder.build();
    }

    /** Allocates a group on a thread of its own, writes its pages, and waits until that thread has ended. */
    private static PageGroup allocatedByAnEndedThread(MemoryManager mm, String owner, int pages) throws Exception {
        AtomicReference<PageGroup> made = new AtomicReference<>();
        Thread worker = Thread.ofPlatform().start(() -> {
            PageGroup group = mm.allocateGroup(owner, pages);
            for (int i = 0; i < group.size(); i++) {
                group.page(i).fill((byte) (i + 1));
            }
            made.set(group);
        });
        worker.join(10_000);
        assertThat(worker.isAlive()).isFalse();
        assertThat(made.get()).isNotNull();
        return made.get();
    }

    private static void assertReleased(PageGroup group) {
        assertThat(group.isAlive()).as("isAlive of a released group").isFalse();
        assertThat(group.toString()).contains("released");
        for (int i = 0; i < group.size(); i++) {
            int index = i;
            assertThatThrownBy(() -> group.page(index)).as("page(%d) of a released group", index)
                    .isInstanceOf(IllegalStateException.class).isNotInstanceOf(WrongThreadException.class)
                    .hasMessageContaining("released");
        }
    }

    @ParameterizedTest
    @EnumSource(value = MemoryType.class, names = {"NATIVE", "MAPPED"})
    void releaseAllFromAnotherThreadReleasesTheGroup(MemoryType type) throws Exception {
        try (MemoryManager mm = newManager(type, 4)) {
            PageGroup group = allocatedByAnEndedThread(mm, "worker", 3);
            assertThat(group.isAlive()).as("nothing released it yet").isTrue();

            mm.releaseAll("worker");

            assertReleased(group);
            assertThat(mm.usedPages()).isZero();
            assertThat(mm.quarantinedPages()).isZero();
            assertThat(mm.freePages()).isEqualTo(4);
            // its pages serve another owner now; the group hands none of them out
            List<MemorySegment> next = mm.allocatePages("next", 4);
            next.forEach(page -> page.fill((byte) 9));
            assertReleased(group);
            assertThat(next).allSatisfy(page -> assertThat(page.get(ValueLayout.JAVA_BYTE, PAGE - 1)).isEqualTo((byte) 9));
            assertThatThrownBy(group::close).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("already released");
            assertThat(mm.usedPages()).isEqualTo(4);
            mm.release(next);
        }
        assertThat(leaks).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(value = MemoryType.class, names = {"NATIVE", "MAPPED"})
    void closeOfTheManagerFromAnotherThreadReleasesTheGroup(MemoryType type) throws Exception {
        MemoryManager mm = newManager(type, 4);
        PageGroup group = allocatedByAnEndedThread(mm, "worker", 2);

        mm.close();

        assertReleased(group);
        assertThat(leaks).singleElement().asString().contains("worker: 2 pages")
                .doesNotContain("confined to live threads");
        assertThatCode(group::close).as("after the manager's close, as release").doesNotThrowAnyException();
        assertReleased(group);
    }

    /**
     * releaseAll while the group's thread lives quarantines the group (it stays alive for that thread); once
     * the thread has ended, a request that needs the pages takes them back, and then the group is released.
     */
    @ParameterizedTest
    @EnumSource(value = MemoryType.class, names = {"NATIVE", "MAPPED"})
    void aQuarantinedGroupIsReleasedWhenItsPagesComeBackAfterItsThreadEnded(MemoryType type) throws Exception {
        try (MemoryManager mm = newManager(type, 4)) {
            AtomicReference<PageGroup> made = new AtomicReference<>();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            CountDownLatch allocated = new CountDownLatch(1);
            CountDownLatch released = new CountDownLatch(1);
            Thread worker = Thread.ofPlatform().start(() -> {
                try {
                    PageGroup group = mm.allocateGroup("worker", 2);
                    made.set(group);
                    allocated.countDown();
                    assertThat(released.await(10, TimeUnit.SECONDS)).isTrue();
                    // kept for this thread while it lives
                    assertThat(group.isAlive()).isTrue();
                    group.page(1).set(ValueLayout.JAVA_INT, 0, 42);
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            assertThat(allocated.await(10, TimeUnit.SECONDS)).isTrue();
            mm.releaseAll("worker");
            assertThat(mm.quarantinedPages()).isEqualTo(2);
            released.countDown();
            worker.join(10_000);
            assertThat(worker.isAlive()).isFalse();
            assertThat(failure.get()).isNull();
            PageGroup group = made.get();

            List<MemorySegment> all = mm.allocatePages("next", 4); // needs the quarantined pages
            assertThat(mm.quarantinedPages()).isZero();

            assertReleased(group);
            mm.release(all);
        }
        assertThat(leaks).isEmpty();
    }
}
