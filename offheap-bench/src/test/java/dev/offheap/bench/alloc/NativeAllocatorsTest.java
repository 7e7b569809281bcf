package dev.offheap.bench.alloc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The C allocators' downcalls and the readings the fragmentation experiment takes. */
class NativeAllocatorsTest {
    @Test
    void mallocAndCallocHandOutWritableSegmentsOfTheSize() {
        MemorySegment m = Libc.malloc(100);
        assertThat(m.byteSize()).isEqualTo(100);
        assertThat(Touch.firstAndLast(m)).isEqualTo(m.address());
        assertThat(m.get(ValueLayout.JAVA_LONG_UNALIGNED, 0)).isEqualTo(92);
        assertThat(m.get(ValueLayout.JAVA_LONG_UNALIGNED, 92)).isEqualTo(1);
        Libc.free(m);
        MemorySegment c = Libc.calloc(4096);
        assertThat(c.byteSize()).isEqualTo(4096);
        assertThat(c.mismatch(MemorySegment.ofArray(new byte[4096]))).isEqualTo(-1);
        Libc.free(c);
    }

    @Test
    void mallinfo2SeesALargeAllocationAndItsFree() {
        assumeTrue(Libc.hasMallinfo2(), "glibc 2.33+");
        long before = Libc.mallocFootprint();
        MemorySegment big = Libc.malloc(64L << 20); // above the mmap threshold: its own mapping
        long during = Libc.mallocFootprint();
        Libc.free(big);
        long after = Libc.mallocFootprint();
        // the footprint is the whole process's: JVM threads malloc and free at the same time (a run saw
        // 72 KiB freed in between), so the 64 MiB mapping is checked with 1 MiB of slack for them
        long slack = 1L << 20;
        assertThat(during - before).isGreaterThanOrEqualTo((64L << 20) - slack);
        assertThat(during - after).isGreaterThanOrEqualTo((64L << 20) - slack);
        Libc.mallocTrim();
    }

    @Test
    void residentSetGrowsWhenMemoryIsWritten() {
        long before = Libc.residentBytes();
        MemorySegment big = Libc.malloc(64L << 20);
        big.fill((byte) 1);
        long after = Libc.residentBytes();
        Libc.free(big);
        assertThat(after - before).isGreaterThan(48L << 20);
    }

    @Test
    void aMissingMimallocIsReportedWithThePackageToInstall() {
        Mimalloc.Lookup lookup = Mimalloc.lookup(Path.of("/nonexistent/libmimalloc.so.2"), "libnonexistent-mimalloc.so.9");
        assertThat(lookup.library()).isNull();
        assertThat(lookup.reason()).contains("/nonexistent/libmimalloc.so.2 does not exist")
                .contains("libnonexistent-mimalloc.so.9").contains("libmimalloc2.0");
    }

    @Test
    void requireFailsClearlyExactlyWhenMimallocIsMissing() {
        if (Mimalloc.unavailableReason().isPresent()) {
            assertThatThrownBy(Mimalloc::require).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("libmimalloc2.0");
            assertThat(new Mimalloc.Installed().unmet()).isPresent();
        } else {
            Mimalloc.require();
            assertThat(new Mimalloc.Installed().unmet()).isEmpty();
        }
    }

    @Test
    void mimallocAllocatesFreesAndReportsItsCommit() {
        assumeTrue(Mimalloc.unavailableReason().isEmpty(), () -> Mimalloc.unavailableReason().orElseThrow());
        long before = Mimalloc.committedBytes();
        MemorySegment[] blocks = new MemorySegment[64];
        for (int i = 0; i < blocks.length; i++) {
            blocks[i] = Mimalloc.malloc(64 * 1024);
            Touch.firstAndLast(blocks[i]);
        }
        assertThat(Mimalloc.committedBytes() - before).isGreaterThanOrEqualTo(64L * 64 * 1024);
        for (MemorySegment b : blocks) {
            Mimalloc.free(b);
        }
        MemorySegment z = Mimalloc.calloc(256);
        assertThat(z.mismatch(MemorySegment.ofArray(new byte[256]))).isEqualTo(-1);
        Mimalloc.free(z);
        Mimalloc.collect();
    }

    @Test
    void touchRefusesSizesWithoutRoomForAWord() {
        assertThat(Touch.checkSize(8)).isEqualTo(8);
        assertThatThrownBy(() -> Touch.checkSize(7)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 8").hasMessageContaining("got 7");
    }
}
