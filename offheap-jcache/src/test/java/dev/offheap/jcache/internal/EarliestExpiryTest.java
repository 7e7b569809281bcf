package dev.offheap.jcache.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@link EarliestExpiry}: when a sweep may skip its walk. */
class EarliestExpiryTest {

    @Test
    void nothingIsDueUntilTheEarliestTimeWritten() {
        EarliestExpiry earliest = new EarliestExpiry();
        assertThat(earliest.nothingDueAt(Long.MAX_VALUE - 1)).as("nothing written, nothing ever due").isTrue();
        earliest.written(Expirable.NEVER);
        assertThat(earliest.nothingDueAt(Long.MAX_VALUE - 1)).as("eternal entries are never due").isTrue();
        earliest.written(500);
        earliest.written(900);
        assertThat(earliest.nothingDueAt(499)).isTrue();
        assertThat(earliest.nothingDueAt(500)).isFalse();
    }

    @Test
    void aCompletedSweepRaisesTheBoundToWhatItLeft() {
        EarliestExpiry earliest = new EarliestExpiry();
        earliest.written(500);
        long before = earliest.startSweep();
        assertThat(before).isEqualTo(500);
        earliest.endSweep(2_000);
        assertThat(earliest.nothingDueAt(1_999)).isTrue();
        assertThat(earliest.nothingDueAt(2_000)).isFalse();
    }

    @Test
    void writesDuringASweepKeepTheBoundLow() {
        EarliestExpiry earliest = new EarliestExpiry();
        earliest.written(500);
        earliest.startSweep();
        earliest.written(700);
        earliest.endSweep(2_000);
        assertThat(earliest.nothingDueAt(699)).isTrue();
        assertThat(earliest.nothingDueAt(700)).isFalse();
    }

    @Test
    void noSweepSkipsWhileAnotherIsRunning() {
        EarliestExpiry earliest = new EarliestExpiry();
        earliest.written(500);
        earliest.startSweep();
        assertThat(earliest.nothingDueAt(600)).as("the running sweep reset the bound, and has not seen everything")
                .isFalse();
        earliest.endSweep(Expirable.NEVER);
        assertThat(earliest.nothingDueAt(600)).isTrue();
    }

    @Test
    void anAbandonedSweepPutsTheBoundBack() {
        EarliestExpiry earliest = new EarliestExpiry();
        earliest.written(500);
        long before = earliest.startSweep();
        earliest.abandonSweep(before, 3_000);
        assertThat(earliest.nothingDueAt(499)).isTrue();
        assertThat(earliest.nothingDueAt(500)).isFalse();
    }
}
