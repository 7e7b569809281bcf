package dev.offheap.memory;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MemoryManagerJfrTest {
    @TempDir
    Path tempDir;

    @Test
    void failedAllocationAndSpillAreRecorded() throws Exception {
        Path dump = tempDir.resolve("memory.jfr");
        try (Recording recording = new Recording()) {
            recording.enable("dev.offheap.PageAllocationFailed");
            recording.enable("dev.offheap.Spill");
            recording.start();
            try (MemoryManager mm = MemoryManager.builder().name("jfr-test").registerMBean(false)
                    .pageSize(4096).totalSize(4 * 4096).build()) {
                List<MemorySegment> cache = mm.allocatePages("cache", 3);
                mm.allocatePage("sorter");
                assertThatThrownBy(() -> mm.allocatePages("sorter", 2)).isInstanceOf(BudgetExceededException.class);

                mm.registerSpillCallback("cache", (m, bytes) -> {
                    m.release(cache.removeLast());
                    return 4096;
                });
                mm.allocatePage("sorter");
                mm.releaseAll("cache");
                mm.releaseAll("sorter");
            }
            recording.stop();
            recording.dump(dump);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(dump);
        List<RecordedEvent> failed = events.stream()
                .filter(e -> e.getEventType().getName().equals("dev.offheap.PageAllocationFailed")).toList();
        List<RecordedEvent> spills = events.stream()
                .filter(e -> e.getEventType().getName().equals("dev.offheap.Spill")).toList();

        assertThat(failed).hasSize(1);
        RecordedEvent f = failed.getFirst();
        assertThat(f.getString("manager")).isEqualTo("jfr-test");
        assertThat(f.getString("owner")).isEqualTo("sorter");
        assertThat(f.getLong("requestedBytes")).isEqualTo(2 * 4096);
        assertThat(f.getLong("usedBytes")).isEqualTo(4 * 4096);
        assertThat(f.getLong("limitBytes")).isEqualTo(4 * 4096);
        assertThat(f.getStackTrace()).isNotNull();

        assertThat(spills).hasSize(1);
        RecordedEvent s = spills.getFirst();
        assertThat(s.getString("manager")).isEqualTo("jfr-test");
        assertThat(s.getString("requester")).isEqualTo("sorter");
        assertThat(s.getString("spillingOwner")).isEqualTo("cache");
        assertThat(s.getLong("wantedBytes")).isEqualTo(4096);
        assertThat(s.getLong("freedBytes")).isEqualTo(4096);
    }
}
