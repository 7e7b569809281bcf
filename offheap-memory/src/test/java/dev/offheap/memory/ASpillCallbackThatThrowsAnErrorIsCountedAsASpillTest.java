package dev.offheap.memory;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A spill callback that throws an {@link Error} (an {@code AssertionError} of a test, an
 * {@code OutOfMemoryError} while it writes its spill file) ends the request with that error, as designed;
 * but it was invoked, and may have released memory first. {@link MemoryManager#spillCount()} ("spill
 * callbacks invoked"), {@link MemoryManager#spilledBytes()} and the JFR {@code dev.offheap.Spill} event
 * ("each callback invocation is a Spill event", docs/memory.md) left such a call out: the counting came
 * after the callback, on the normal path only.
 */
class ASpillCallbackThatThrowsAnErrorIsCountedAsASpillTest {
    private static final int PAGE = 4096;

    @TempDir
    Path tempDir;

    @Test
    void aCallbackThatReleasesAPageAndThenThrowsAnErrorIsCountedWithWhatItGaveBack() throws Exception {
        Path dump = tempDir.resolve("spill.jfr");
        try (Recording recording = new Recording()) {
            recording.enable("dev.offheap.Spill");
            recording.start();
            try (MemoryManager mm = MemoryManager.builder().name("spill-error").registerMBean(false)
                    .leakReporter(report -> { }).pageAccess(PageAccess.SHARED)
                    .pageSize(PAGE).totalSize(16L * PAGE).build()) {
                List<MemorySegment> cache = new CopyOnWriteArrayList<>(mm.allocatePages("cache", 10));
                mm.registerSpillCallback("cache", (m, wanted) -> {
                    m.release(cache.removeLast());
                    throw new AssertionError("spill file broken");
                });
                assertThatThrownBy(() -> mm.allocatePages("sorter", 10)).isInstanceOf(AssertionError.class)
                        .hasMessage("spill file broken");
                assertThat(mm.spillCount()).as("spill callbacks invoked").isEqualTo(1);
                assertThat(mm.spilledBytes()).as("what the callback gave back before it threw").isEqualTo(PAGE);
                assertThat(mm.allocationFailures()).as("the request was not refused").isZero();
                assertThat(mm.usedBytes()).isEqualTo(9L * PAGE);
            }
            recording.stop();
            recording.dump(dump);
        }
        List<RecordedEvent> spills = RecordingFile.readAllEvents(dump).stream()
                .filter(e -> e.getEventType().getName().equals("dev.offheap.Spill"))
                .filter(e -> "spill-error".equals(e.getString("manager"))).toList();
        assertThat(spills).hasSize(1);
        assertThat(spills.getFirst().getString("spillingOwner")).isEqualTo("cache");
        assertThat(spills.getFirst().getLong("wantedBytes")).isEqualTo(4L * PAGE);
        assertThat(spills.getFirst().getLong("freedBytes")).isEqualTo(PAGE);
    }
}
