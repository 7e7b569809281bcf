package dev.offheap.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A group whose scope the manager's close cannot revoke is kept: a {@link PageAccess#CONFINED} group of a
 * thread that lives while another thread closes the manager, or a {@link PageAccess#SHARED} group a native
 * call holds then. {@link PageGroup#isAlive()} promises such a group stays alive until its thread closes it or
 * ends. Its close() did nothing after the manager's close: the group said it was alive, page(i) handed out
 * segments and every segment of it kept working until its thread ended (or the group was collected). Now
 * its close() revokes it as a close before the manager's does; its memory is still kept until nothing can
 * reach it, as the manager's close said, and a second close() after the manager's does nothing, as before.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AGroupKeptAtTheManagersCloseIsReleasedByItsCloseTest {
    private static final int PAGE = 4096;

    @TempDir
    Path tempDir;

    private MemoryManager newManager(MemoryType type, PageAccess access) {
        MemoryManager.Builder builder = MemoryManager.builder().registerMBean(false).leakReporter(s -> { })
                .pageAccess(access).pageSize(PAGE).totalSize(4L * PAGE).type(type);
        if (type == MemoryType.MAPPED) {
            builder.mappedFile(tempDir.resolve("pages.bin"));
        }
        return builder.build();
    }

    private static void assertReleased(PageGroup group, MemorySegment stale) {
        assertThat(group.isAlive()).as("isAlive once closed").isFalse();
        assertThat(group.toString()).contains("released");
        for (int i = 0; i < group.size(); i++) {
            int index = i;
            assertThatThrownBy(() -> group.page(index)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("released");
        }
        assertThatThrownBy(() -> stale.get(ValueLayout.JAVA_BYTE, 0)).isInstanceOf(IllegalStateException.class);
        assertThatCode(group::close).as("closed again, after the manager's close").doesNotThrowAnyException();
    }

    @ParameterizedTest
    @EnumSource(value = MemoryType.class, names = {"NATIVE", "MAPPED"})
    void aConfinedGroupClosedByItsThreadAfterAnotherClosedTheManager(MemoryType type) throws Exception {
        MemoryManager mm = newManager(type, PageAccess.CONFINED);
        CountDownLatch allocated = new CountDownLatch(1);
        CountDownLatch managerClosed = new CountDownLatch(1);
        CompletableFuture<Void> worker = CompletableFuture.runAsync(() -> {
            PageGroup group = mm.allocateGroup("worker", 2);
            MemorySegment page = group.page(0);
            page.fill((byte) 5);
            allocated.countDown();
            try {
                managerClosed.await();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            // kept for this thread, as documented: still alive and readable
            assertThat(group.isAlive()).isTrue();
            assertThat(page.get(ValueLayout.JAVA_BYTE, 0)).isEqualTo((byte) 5);
            group.close();
            assertReleased(group, page);
        }, r -> Thread.ofPlatform().start(r));
        allocated.await();
        mm.close();
        assertThat(mm.quarantinedPages()).as("kept for the live thread").isEqualTo(2);
        managerClosed.countDown();
        worker.get(30, TimeUnit.SECONDS);
    }

    @Test
    void aSharedGroupANativeCallHeldAtTheManagersCloseIsClosedAfterTheCall() throws Exception {
        MemoryManager mm = newManager(MemoryType.NATIVE, PageAccess.SHARED);
        PageGroup group = mm.allocateGroup("sorter", 2);
        MemorySegment page = group.page(1);
        HeldInDowncall held = new HeldInDowncall(page);
        try {
            mm.close();
            assertThat(mm.quarantinedPages()).as("kept while the call holds them").isEqualTo(2);
        } finally {
            held.release();
        }
        group.close();
        assertReleased(group, page);
    }
}
