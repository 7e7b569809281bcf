package dev.offheap.memory;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BudgetRaceTest {

    /**
     * A daemon thread that applies an operation to whatever budget is offered, until it is withdrawn;
     * {@link #withdraw} returns only once the worker no longer touches the budget (a Dekker handshake on
     * two volatile references), so the caller can then look at quiescent counters.
     */
    static final class Worker implements AutoCloseable {
        final AtomicReference<Budget> offered = new AtomicReference<>();
        final AtomicReference<Budget> inUse = new AtomicReference<>();
        final AtomicBoolean stop = new AtomicBoolean();
        final Thread thread;

        Worker(Consumer<Budget> op) {
            thread = new Thread(() -> {
                while (!stop.get()) {
                    Budget b = offered.get();
                    if (b == null) {
                        Thread.onSpinWait();
                        continue;
                    }
                    inUse.set(b);
                    if (offered.get() == b) {
                        op.accept(b);
                    }
                    inUse.set(null);
                }
            });
            thread.setDaemon(true);
            thread.start();
        }

        void offer(Budget b) {
            offered.set(b);
        }

        void withdraw(Budget b) {
            offered.set(null);
            while (inUse.get() == b) {
                Thread.onSpinWait();
            }
        }

        @Override
        public void close() {
            stop.set(true);
            try {
                thread.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * A thread reserves and releases 1 byte directly on a budget while another thread creates the budget's
     * first child. Afterwards nothing is reserved directly: reservedDirectly() must be 0 and a release of
     * one more byte must be refused as an over-release (docs/memory.md: "an over-release is refused exactly").
     */
    @Test
    void firstChildCreatedWhileReservingDirectlyKeepsDirectCountExact() throws Exception {
        int drifted = 0;
        int overReleaseAccepted = 0;
        String example = null;
        int rounds = 20_000;
        try (Worker worker = new Worker(b -> {
            b.reserve(1);
            b.release(1);
        })) {
            for (int round = 0; round < rounds; round++) {
                Budget root = Budget.root("r" + round, 1 << 20, s -> { });
                worker.offer(root);
                for (int spin = round % 200; spin > 0; spin--) {
                    Thread.onSpinWait();
                }
                root.child("c", 100).close();   // the first child turns on direct counting
                worker.withdraw(root);
                // quiescent: the worker's reserves and releases on root balance out
                if (root.used() != 0) {
                    throw new AssertionError("used " + root.used());
                }
                if (root.reservedDirectly() != 0) {
                    drifted++;
                    try {
                        root.release(1);   // nothing is reserved: must throw IllegalStateException
                        overReleaseAccepted++;
                        if (example == null) {
                            example = "after an accepted over-release of 1 byte: " + root;
                        }
                    } catch (IllegalStateException refused) {
                        // as promised
                    }
                }
            }
        }
        assertThat(drifted + " of " + rounds + " rounds with reservedDirectly() != 0, " + overReleaseAccepted
                + " over-releases accepted; " + example).startsWith("0 of");
    }

    /**
     * A child closed while another thread reserves from it: close() "returns everything to the parent". A
     * reservation that raced the close must either be refused or come back; the parent must end at 0.
     */
    @Test
    void closeRacingReserveLeavesNothingChargedToTheParent() throws Exception {
        Budget root = Budget.root("root", Long.MAX_VALUE, s -> { });
        int leakedRounds = 0;
        int rounds = 20_000;
        long leakedBefore = 0;
        try (Worker worker = new Worker(b -> {
            try {
                b.tryReserve(10);   // never released: close() must give it back
            } catch (IllegalStateException closed) {
                // refused
            }
        })) {
            for (int round = 0; round < rounds; round++) {
                Budget child = root.child("c" + round, Long.MAX_VALUE);
                worker.offer(child);
                for (int spin = round % 200; spin > 0; spin--) {
                    Thread.onSpinWait();
                }
                child.close();
                worker.withdraw(child);
                if (root.used() != leakedBefore) {
                    leakedRounds++;
                    leakedBefore = root.used();
                }
            }
        }
        assertThat(leakedRounds + " of " + rounds + " rounds left the parent charged; parent now " + root
                + ", children " + root.children()).startsWith("0 of");
    }
}
