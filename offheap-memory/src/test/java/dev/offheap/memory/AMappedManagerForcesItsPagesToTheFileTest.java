package dev.offheap.memory;

import static dev.offheap.memory.MappedManagers.mapped;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A MAPPED manager's pages are not mapped segments ({@code isMapped()} is false: each has a scope of its own),
 * so the JDK refuses {@code page.force()} and nothing could write them back to the file before the system
 * chose to: a crash of the machine lost what a crash of the process keeps. {@link MemoryManager#force(MemorySegment)}
 * and {@link MemoryManager#force()} write them back; the system's count of the mapping's dirty pages shows it.
 */
class AMappedManagerForcesItsPagesToTheFileTest {
    private static final long BYTES = 256 * 1024;
    /** The first line of a mapping in smaps: its address range, then its permissions. */
    private static final Pattern MAPPING_LINE = Pattern.compile("[0-9a-f]+-[0-9a-f]+ ");

    @TempDir
    Path dir;

    @Test
    void aForcedPageIsNoLongerDirtyAndForceOfTheManagerCleansEveryPage() throws IOException {
        Path file = dir.resolve("pages.bin");
        try (MemoryManager manager = mapped(file, BYTES).build()) {
            List<MemorySegment> pages = manager.allocatePages("writer", manager.totalPages());
            assertThat(pages.getFirst().isMapped()).as("why the JDK's own force() cannot serve").isFalse();
            for (MemorySegment page : pages) {
                page.fill((byte) 7);
            }
            long dirtyBefore = dirtyKib(file);
            assumeTrue(dirtyBefore >= BYTES / 1024, "the system shows the mapping's dirty pages (" + dirtyBefore + " KiB)");

            manager.force(pages.get(3).asSlice(100, 200));
            assertThat(dirtyKib(file)).as("the forced page's 4 KiB written back").isEqualTo(dirtyBefore - 4);

            manager.force();
            assertThat(dirtyKib(file)).as("every page written back").isZero();
            byte[] contents = Files.readAllBytes(file);
            assertThat(Arrays.copyOfRange(contents, 4096, contents.length)).as("the pages, after the file's header")
                    .hasSize((int) BYTES).containsOnly(7);
            manager.releaseAll("writer");
        }
    }

    @Test
    void forceRefusesWhatIsNotAHeldPageOfAMappedManager() throws IOException {
        Path file = dir.resolve("pages.bin");
        MemoryManager manager = mapped(file, BYTES).build();
        MemorySegment page = manager.allocatePage("owner");
        MemorySegment released = manager.allocatePage("owner");
        manager.release(released);
        try (Arena arena = Arena.ofConfined()) {
            assertThatThrownBy(() -> manager.force(arena.allocate(4096))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("does not lie in the memory of memory manager");
            assertThatThrownBy(() -> manager.force(MemorySegment.ofArray(new byte[4096])))
                    .isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> manager.force(released)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("is not alive");
        assertThatThrownBy(() -> manager.force(null)).isInstanceOf(NullPointerException.class);
        page.set(ValueLayout.JAVA_LONG, 0, 42L);
        manager.force(page);
        manager.close();
        assertThatThrownBy(manager::force).isInstanceOf(IllegalStateException.class).hasMessageContaining("is closed");

        try (MemoryManager heap = MemoryManager.builder().registerMBean(false).type(MemoryType.NATIVE).pageSize(4096)
                .totalSize(BYTES).build()) {
            MemorySegment nativePage = heap.allocatePage("owner");
            assertThatThrownBy(() -> heap.force(nativePage)).isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("is NATIVE");
            assertThatThrownBy(heap::force).isInstanceOf(UnsupportedOperationException.class);
        }
    }

    /** @return the dirty KiB (shared and private) of this process's mapping of {@code file}, from /proc/self/smaps */
    private static long dirtyKib(Path file) throws IOException {
        Path smaps = Path.of("/proc/self/smaps");
        assumeTrue(Files.isReadable(smaps), "Linux's /proc/self/smaps");
        String name = file.toRealPath().toString();
        boolean inMapping = false;
        long dirty = -1;
        for (String line : Files.readAllLines(smaps)) {
            if (MAPPING_LINE.matcher(line).lookingAt()) {
                inMapping = line.endsWith(" " + name);
                if (inMapping) {
                    dirty = Math.max(dirty, 0);
                }
            } else if (inMapping && (line.startsWith("Shared_Dirty:") || line.startsWith("Private_Dirty:"))) {
                dirty += Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        assumeTrue(dirty >= 0, "the mapping of " + name + " is listed in /proc/self/smaps");
        return dirty;
    }
}
