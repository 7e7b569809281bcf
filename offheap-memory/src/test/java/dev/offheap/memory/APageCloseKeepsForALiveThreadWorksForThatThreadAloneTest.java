package dev.offheap.memory;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What holds for a {@link PageAccess#CONFINED} page whose thread is alive when another thread closes the manager.
 * The JDK lets only a confined scope's own thread close it, so close cannot revoke the page: its segment keeps
 * working for that thread, and for that thread alone, until the thread ends; its memory is handed to no one and
 * freed only after that. This is what {@link MemoryManager#close()} and docs/memory.md say, in place of "every
 * segment throws after close", which the FFM API cannot give for a confined scope of another live thread.
 */
class APageCloseKeepsForALiveThreadWorksForThatThreadAloneTest {
    private static final int PAGE = 4096;

    @Test
    void theKeptPageWorksForItsThreadAloneAndIsHandedToNoOne() throws Exception {
        List<String> reports = new CopyOnWriteArrayList<>();
        MemoryManager mm = MemoryManager.builder().registerMBean(false).leakReporter(reports::add)
                .pageAccess(PageAccess.CONFINED).pageSize(PAGE).totalSize(8L * PAGE).build();
        AtomicReference<MemorySegment> kept = new AtomicReference<>();
        MemoryManagerConformanceTest.Worker holder = MemoryManagerConformanceTest.Worker.start(() -> {
            MemorySegment page = mm.allocatePage("holder");
            page.set(ValueLayout.JAVA_LONG, 0, 42L);
            kept.set(page);
        }, () -> {
            MemorySegment page = kept.get();
            assertThat(page.get(ValueLayout.JAVA_LONG, 0)).as("read by its thread after close").isEqualTo(42L);
            page.set(ValueLayout.JAVA_LONG, 8, 43L);
            mm.release(page); // after close: does nothing, the page stays as it was
            assertThat(page.get(ValueLayout.JAVA_LONG, 8)).isEqualTo(43L);
        });

        mm.close(); // from this thread: the holder is alive, its page cannot be revoked from here

        assertThat(reports).singleElement().asString().contains("holder: 1 pages")
                .contains("1 pages confined to live threads are kept");
        assertThatThrownBy(() -> kept.get().get(ValueLayout.JAVA_LONG, 0)).as("any other thread's access")
                .isInstanceOf(WrongThreadException.class);
        assertThatThrownBy(() -> mm.allocatePage("next")).as("nobody else gets the page")
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("is closed");
        assertThat(mm.quarantinedPages()).as("pages whose memory close kept").isEqualTo(1);
        assertThat(mm.usedBytes()).isEqualTo(PAGE);
        holder.finish();
    }
}
