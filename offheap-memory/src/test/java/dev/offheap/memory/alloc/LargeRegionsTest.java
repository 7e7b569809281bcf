package dev.offheap.memory.alloc;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Regions small (from the arena) and large (mapped, huge-page advised): zeroed, usable, gone with the arena. */
class LargeRegionsTest {

    @ParameterizedTest
    @ValueSource(longs = {0, 1, 4096, (2L << 20) - 8, 2L << 20, (2L << 20) + 8, 9L << 20})
    void aRegionIsZeroedAlignedUsableAndLivesAsLongAsItsArena(long bytes) {
        MemorySegment region;
        try (Arena arena = Arena.ofShared()) {
            region = LargeRegions.allocate(bytes, arena);
            assertThat(region.byteSize()).isEqualTo(bytes);
            assertThat(region.address() % Long.BYTES).isZero();
            if (bytes >= LargeRegions.HUGE_PAGE_BYTES && isLinux()) {
                assertThat(region.address() % LargeRegions.HUGE_PAGE_BYTES).as("mapped on a huge-page boundary").isZero();
            }
            for (long at = 0; at + Long.BYTES <= bytes; at += 4096) {
                assertThat(region.get(ValueLayout.JAVA_LONG, at)).isZero();
                region.set(ValueLayout.JAVA_LONG, at, at + 1);
            }
            if (bytes > 0) {
                region.set(ValueLayout.JAVA_BYTE, bytes - 1, (byte) 7);
                assertThat(region.get(ValueLayout.JAVA_BYTE, bytes - 1)).isEqualTo((byte) 7);
            }
            for (long at = 0; at + Long.BYTES <= bytes - 1; at += 4096) {
                assertThat(region.get(ValueLayout.JAVA_LONG, at)).isEqualTo(at + 1);
            }
            assertThatThrownBy(() -> region.get(ValueLayout.JAVA_BYTE, bytes)).isInstanceOf(IndexOutOfBoundsException.class);
        }
        if (bytes > 0) {
            // unmapped with the arena: access throws instead of faulting the JVM
            assertThatThrownBy(() -> region.get(ValueLayout.JAVA_BYTE, 0)).isInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    void aLargeRegionIsAdvisedToUseHugePagesOnLinux() throws Exception {
        if (!isLinux()) {
            return;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment region = LargeRegions.allocate(4L << 20, arena);
            String start = Long.toHexString(region.address());
            // the kernel lists the mapping's advice as the "hg" flag in its VmFlags, whatever huge pages it got
            java.util.List<String> smaps = Files.readAllLines(Path.of("/proc/self/smaps"));
            int header = -1;
            for (int i = 0; i < smaps.size(); i++) {
                if (smaps.get(i).startsWith(start + "-")) {
                    header = i;
                    break;
                }
            }
            assertThat(header).as("the region's mapping in /proc/self/smaps").isNotNegative();
            String flags = smaps.subList(header, smaps.size()).stream().filter(l -> l.startsWith("VmFlags:"))
                    .findFirst().orElseThrow();
            assertThat(flags.split("\\s+")).contains("hg");
        }
    }

    @Test
    void badInputIsRefused() {
        try (Arena arena = Arena.ofConfined()) {
            assertThatThrownBy(() -> LargeRegions.allocate(-1, arena)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("-1 bytes");
            assertThatThrownBy(() -> LargeRegions.allocate(1, null)).isInstanceOf(NullPointerException.class)
                    .hasMessageContaining("arena");
        }
        Arena closed = Arena.ofShared();
        closed.close();
        assertThatThrownBy(() -> LargeRegions.allocate(4L << 20, closed)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> LargeRegions.allocate(16, closed)).isInstanceOf(IllegalStateException.class);
    }

    private static boolean isLinux() {
        return System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("linux");
    }
}
