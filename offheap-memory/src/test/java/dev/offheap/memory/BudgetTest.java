package dev.offheap.memory;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BudgetTest {
    private final List<String> leaks = new CopyOnWriteArrayList<>();

    private Budget root(String name, long limit) {
        return Budget.root(name, limit, leaks::add);
    }

    /** The counters of a budget, to compare before and after an operation that must change nothing. */
    private record Snapshot(long used, long reserved, long peak, long available, int children, boolean closed) {
        Snapshot withoutPeak() {
            return new Snapshot(used, reserved, -1, available, children, closed);
        }

        static Snapshot of(Budget b) {
            return new Snapshot(b.used(), b.reserved(), b.peak(), b.available(), b.children().size(), b.isClosed());
        }
    }

    // ------------------------------------------------------------------ basics

    @Test
    void reserveAndReleaseCountBytesAndPeak() {
        try (Budget b = root("process", 1000)) {
            assertThat(b.used()).isZero();
            assertThat(b.limit()).isEqualTo(1000);
            assertThat(b.available()).isEqualTo(1000);
            b.reserve(300);
            b.reserve(200);
            assertThat(b.used()).isEqualTo(500);
            assertThat(b.reserved()).isEqualTo(500);
            assertThat(b.available()).isEqualTo(500);
            assertThat(b.peak()).isEqualTo(500);
            b.release(400);
            assertThat(b.used()).isEqualTo(100);
            assertThat(b.peak()).isEqualTo(500);
            b.reserve(900);
            assertThat(b.used()).isEqualTo(1000);
            assertThat(b.available()).isZero();
            assertThat(b.peak()).isEqualTo(1000);
            b.release(1000);
            assertThat(b.used()).isZero();
            assertThat(b.peak()).isEqualTo(1000);
        }
        assertThat(leaks).isEmpty();
    }

    @Test
    void tryReserveReturnsFalseAtTheLimitAndReservesNothing() {
        try (Budget b = root("process", 100)) {
            assertThat(b.tryReserve(60)).isTrue();
            assertThat(b.tryReserve(41)).isFalse();
            assertThat(b.used()).isEqualTo(60);
            assertThat(b.peak()).isEqualTo(60);
            assertThat(b.tryReserve(40)).isTrue();
            assertThat(b.used()).isEqualTo(100);
            assertThat(b.tryReserve(1)).isFalse();
            assertThat(b.tryReserve(0)).isTrue();
            b.release(100);
        }
    }

    @Test
    void zeroLimitAdmitsOnlyZero() {
        try (Budget b = root("empty", 0)) {
            b.reserve(0);
            assertThat(b.tryReserve(1)).isFalse();
            assertThatThrownBy(() -> b.reserve(1)).isInstanceOf(BudgetExceededException.class);
        }
    }

    @Test
    void reservingPastTheLargestCountIsRefusedNotWrapped() {
        // whatever the limit, at most Budget.MAX_BYTES (2 EiB) are in use at once: the count shares its word
        // with two state marks
        try (Budget b = root("huge", Long.MAX_VALUE)) {
            b.reserve(Budget.MAX_BYTES - 10);
            assertThat(b.tryReserve(11)).isFalse();
            assertThat(b.tryReserve(Long.MAX_VALUE)).isFalse();
            assertThatThrownBy(() -> b.reserve(Long.MAX_VALUE)).isInstanceOf(BudgetExceededException.class);
            assertThat(b.used()).isEqualTo(Budget.MAX_BYTES - 10);
            b.reserve(10);
            assertThat(b.used()).isEqualTo(Budget.MAX_BYTES);
            b.release(Budget.MAX_BYTES);
            assertThat(b.used()).isZero();
        }
    }

    @Test
    void namesAndPaths() {
        try (Budget r = root("process", 100)) {
            Budget c = r.child("cache", 50);
            Budget g = c.child("request-1", 10);
            assertThat(r.name()).isEqualTo("process");
            assertThat(r.path()).isEqualTo("process");
            assertThat(r.parent()).isNull();
            assertThat(g.name()).isEqualTo("request-1");
            assertThat(g.path()).isEqualTo("process/cache/request-1");
            assertThat(g.parent()).isSameAs(c);
            assertThat(r.children()).containsExactly(c);
            assertThat(c.children()).containsExactly(g);
            assertThat(r.reservation()).isZero();
            assertThat(g.toString()).contains("process/cache/request-1");
        }
    }

    // ------------------------------------------------------------------ bad input

    @ParameterizedTest(name = "''{0}''")
    @ValueSource(strings = {"", " ", "\t", "a/b", "/", "x/"})
    void badNamesAreRejected(String name) {
        assertThatThrownBy(() -> Budget.root(name, 10)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Budget.root(name, 10, leaks::add)).isInstanceOf(IllegalArgumentException.class);
        try (Budget r = root("r", 10)) {
            assertThatThrownBy(() -> r.child(name, 5)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> r.child(name, 5, 1)).isInstanceOf(IllegalArgumentException.class);
            assertThat(r.children()).isEmpty();
            assertThat(r.used()).isZero();
        }
    }

    @Test
    void nullsAreRejected() {
        assertThatThrownBy(() -> Budget.root(null, 10)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> Budget.root("r", 10, null)).isInstanceOf(NullPointerException.class);
        try (Budget r = root("r", 10)) {
            assertThatThrownBy(() -> r.child(null, 5)).isInstanceOf(NullPointerException.class);
            assertThatThrownBy(() -> r.child(null, 5, 0)).isInstanceOf(NullPointerException.class);
        }
    }

    @Test
    void negativeSizesAreRejectedAndChangeNothing() {
        assertThatThrownBy(() -> Budget.root("r", -1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("-1");
        try (Budget r = root("r", 100)) {
            r.reserve(10);
            Snapshot before = Snapshot.of(r);
            assertThatThrownBy(() -> r.reserve(-1)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1");
            assertThatThrownBy(() -> r.tryReserve(-5)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-5");
            assertThatThrownBy(() -> r.release(-7)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-7");
            assertThatThrownBy(() -> r.child("c", -1)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> r.child("c", 10, -1)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> r.reserve(Long.MIN_VALUE)).isInstanceOf(IllegalArgumentException.class);
            assertThat(Snapshot.of(r)).isEqualTo(before);
            r.release(10);
        }
    }

    @Test
    void reservationAboveTheChildsLimitIsRejected() {
        try (Budget r = root("r", 100)) {
            assertThatThrownBy(() -> r.child("c", 10, 11)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("10").hasMessageContaining("11");
            assertThat(r.used()).isZero();
            assertThat(r.children()).isEmpty();
        }
    }

    // ------------------------------------------------------------------ the tree

    @Test
    void limitsAtEachLevelOfAThreeLevelTree() {
        try (Budget root = root("process", 1000)) {
            Budget mid = root.child("cache", 600);
            Budget leaf = mid.child("request", 250);
            Budget other = root.child("other", 1000);

            // the leaf's own limit refuses
            leaf.reserve(250);
            BudgetExceededException atLeaf = catchExceeded(() -> leaf.reserve(1));
            assertThat(atLeaf.budgetPath()).isEqualTo("process/cache/request");
            assertThat(atLeaf.limitBytes()).isEqualTo(250);

            // the middle limit refuses though the leaf has room
            leaf.release(250);
            mid.reserve(500);
            BudgetExceededException atMid = catchExceeded(() -> leaf.reserve(101));
            assertThat(atMid.budgetPath()).isEqualTo("process/cache");
            assertThat(atMid.limitBytes()).isEqualTo(600);
            assertThat(atMid.usedBytes()).isEqualTo(500);
            assertThat(atMid.requestedBytes()).isEqualTo(101);
            leaf.reserve(100);
            assertThat(mid.used()).isEqualTo(600);

            // the root refuses though child and grandchild have room
            leaf.release(100);
            mid.release(500);
            other.reserve(900);
            BudgetExceededException atRoot = catchExceeded(() -> leaf.reserve(101));
            assertThat(atRoot.budgetPath()).isEqualTo("process");
            assertThat(atRoot.limitBytes()).isEqualTo(1000);
            assertThat(atRoot.usedBytes()).isEqualTo(900);
            assertThat(leaf.tryReserve(101)).isFalse();
            assertThat(leaf.tryReserve(100)).isTrue();
            assertThat(leaf.used()).isEqualTo(100);
            assertThat(mid.used()).isEqualTo(100);
            assertThat(root.used()).isEqualTo(1000);
            assertThat(root.peak()).isEqualTo(1000);
            leaf.release(100);
            other.release(900);
            assertThat(root.used()).isZero();
            assertThat(mid.used()).isZero();
        }
        assertThat(leaks).isEmpty();
    }

    @Test
    void childReservationIsTakenAtCreationAndUseWithinItDoesNotTouchTheParent() {
        try (Budget root = root("process", 1000)) {
            Budget child = root.child("sorter", 400, 100);
            assertThat(child.reservation()).isEqualTo(100);
            assertThat(child.reserved()).isEqualTo(100);
            assertThat(child.used()).isZero();
            assertThat(root.used()).isEqualTo(100);

            child.reserve(60);
            child.reserve(40);
            assertThat(child.used()).isEqualTo(100);
            assertThat(child.reserved()).isEqualTo(100);
            assertThat(root.used()).as("use within the reservation").isEqualTo(100);
            assertThat(root.peak()).isEqualTo(100);

            // beyond the reservation draws from the parent
            child.reserve(50);
            assertThat(child.used()).isEqualTo(150);
            assertThat(child.reserved()).isEqualTo(150);
            assertThat(root.used()).isEqualTo(150);
            assertThat(root.peak()).isEqualTo(150);

            // release returns to the parent first
            child.release(30);
            assertThat(child.reserved()).isEqualTo(120);
            assertThat(root.used()).isEqualTo(120);
            child.release(30);
            assertThat(child.reserved()).isEqualTo(100);
            assertThat(root.used()).isEqualTo(100);
            child.release(90);
            assertThat(child.used()).isZero();
            assertThat(child.reserved()).isEqualTo(100);
            assertThat(root.used()).as("the reservation stays with the child").isEqualTo(100);
            assertThat(child.peak()).isEqualTo(150);

            // the reservation can be used again without touching the parent
            child.reserve(100);
            assertThat(root.used()).isEqualTo(100);
            child.release(100);

            child.close();
            assertThat(root.used()).isZero();
            assertThat(root.children()).isEmpty();
        }
        assertThat(leaks).isEmpty();
    }

    @Test
    void reservationUseIsFreeEvenWhenTheParentIsFull() {
        try (Budget root = root("process", 100)) {
            Budget child = root.child("guaranteed", 100, 40);
            Budget greedy = root.child("greedy", 100);
            greedy.reserve(60);
            assertThat(greedy.tryReserve(1)).isFalse();
            child.reserve(40);
            assertThat(child.tryReserve(1)).isFalse();
            assertThat(root.used()).isEqualTo(100);
            child.release(40);
            assertThat(greedy.tryReserve(1)).as("the child's reservation is not the greedy sibling's").isFalse();
            greedy.release(60);
        }
    }

    @Test
    void reservationThatTheParentCannotGiveFailsAndChangesNothing() {
        try (Budget root = root("process", 100)) {
            Budget mid = root.child("cache", 100);
            mid.reserve(70);
            Snapshot rootBefore = Snapshot.of(root);
            Snapshot midBefore = Snapshot.of(mid);
            BudgetExceededException e = catchExceeded(() -> mid.child("req", 50, 40));
            assertThat(e.budgetPath()).isEqualTo("process/cache");
            assertThat(e.requestedBytes()).isEqualTo(40);
            assertThat(e.getMessage()).contains("process/cache/req");
            assertThat(Snapshot.of(root)).isEqualTo(rootBefore);
            assertThat(Snapshot.of(mid)).isEqualTo(midBefore);
            mid.release(70);
        }
    }

    @Test
    void failureMessageNamesBudgetRequestLimitUseAndBiggestChildren() {
        try (Budget root = root("process", 10 * 1024)) {
            Budget cache = root.child("cache", 10 * 1024);
            Budget sorter = root.child("sorter", 10 * 1024);
            Budget small = root.child("small", 10 * 1024);
            Budget idle = root.child("idle", 10 * 1024);
            cache.reserve(4096);
            sorter.reserve(3072);
            small.reserve(1024);
            root.reserve(512);
            BudgetExceededException e = catchExceeded(() -> root.reserve(2048));
            assertThat(e.budgetPath()).isEqualTo("process");
            assertThat(e.requestedBytes()).isEqualTo(2048);
            assertThat(e.limitBytes()).isEqualTo(10 * 1024);
            assertThat(e.usedBytes()).isEqualTo(8704);
            String m = e.getMessage();
            assertThat(m).contains("'process'")
                    .contains("2048 bytes").contains("2.0 KiB")
                    .contains("limit 10.0 KiB")
                    .contains("used 8.5 KiB")
                    .contains("cache 4.0 KiB").contains("sorter 3.0 KiB").contains("small 1.0 KiB")
                    .doesNotContain("idle");
            assertThat(m.indexOf("cache 4.0 KiB")).isLessThan(m.indexOf("sorter 3.0 KiB"));
            assertThat(m.indexOf("sorter 3.0 KiB")).isLessThan(m.indexOf("small 1.0 KiB"));

            // requested at a grandchild, refused by the root: the message says both
            Budget req = cache.child("req-7", 10 * 1024);
            BudgetExceededException deep = catchExceeded(() -> req.reserve(4096));
            assertThat(deep.budgetPath()).isEqualTo("process");
            assertThat(deep.getMessage()).contains("process/cache/req-7").contains("'process'");
            root.release(512);
            cache.release(4096);
            sorter.release(3072);
            small.release(1024);
            assertThat(idle.used()).isZero();
        }
    }

    @Test
    void failureMessageOfALeafWithoutChildrenSaysSo() {
        try (Budget root = root("p", 100)) {
            BudgetExceededException e = catchExceeded(() -> root.reserve(101));
            assertThat(e.getMessage()).contains("'p'").contains("101 bytes").contains("limit 100 B").contains("used 0 B");
        }
    }

    @Test
    void failedRequestChangesNothingAnywhereOnThePath() {
        try (Budget root = root("process", 1000)) {
            Budget mid = root.child("cache", 800, 200);
            Budget leaf = mid.child("request", 500, 50);
            Budget sibling = root.child("sibling", 1000);
            leaf.reserve(120);            // 50 from its reservation, 70 drawn from mid's reservation
            mid.reserve(100);             // 200 reservation = 70 + 50 (leaf's reservation) + ... within reservation
            sibling.reserve(500);
            List<Budget> all = List.of(root, mid, leaf, sibling);
            List<Snapshot> before = all.stream().map(Snapshot::of).toList();
            int failures = 0;
            for (long request : new long[]{381, 400, 500, 10_000}) {
                assertThat(leaf.tryReserve(request)).as("tryReserve " + request).isFalse();
                assertThatThrownBy(() -> leaf.reserve(request)).isInstanceOf(BudgetExceededException.class);
                failures++;
                assertThat(all.stream().map(Snapshot::of).toList()).as("after failure " + failures).isEqualTo(before);
            }
            // the exact remaining room still works, proving the refusals left nothing behind
            long room = root.available();
            assertThat(leaf.tryReserve(room)).isTrue();
            assertThat(root.used()).isEqualTo(1000);
            leaf.release(room);
            assertThat(all.stream().map(Snapshot::of).map(Snapshot::withoutPeak).toList())
                    .isEqualTo(before.stream().map(Snapshot::withoutPeak).toList());
            leaf.release(120);
            mid.release(100);
            sibling.release(500);
            leaf.close();
            mid.close();
            assertThat(root.used()).isZero();
        }
        assertThat(leaks).isEmpty();
    }

    @Test
    void releasingMoreThanReservedThrowsAndChangesNothing() {
        try (Budget root = root("process", 1000)) {
            Budget child = root.child("cache", 500, 100);
            child.reserve(150);
            Snapshot rootBefore = Snapshot.of(root);
            Snapshot childBefore = Snapshot.of(child);
            assertThatThrownBy(() -> child.release(151)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("process/cache").hasMessageContaining("151").hasMessageContaining("150");
            assertThat(Snapshot.of(root)).isEqualTo(rootBefore);
            assertThat(Snapshot.of(child)).isEqualTo(childBefore);
            child.release(150);
            assertThatThrownBy(() -> child.release(1)).isInstanceOf(IllegalStateException.class);
            assertThat(child.used()).isZero();
            assertThat(root.used()).isEqualTo(100);
            child.release(0);
        }
    }

    /**
     * The documented limit of release is "used() minus what the children hold": a parent must not be able to
     * release bytes that its child reserved, which would leave the parent's count below its children's.
     */
    @Test
    void parentCannotReleaseBytesItsChildHolds() {
        try (Budget root = root("process", 1000)) {
            Budget child = root.child("cache", 1000);
            child.reserve(100);
            assertThatThrownBy(() -> root.release(100)).isInstanceOf(IllegalStateException.class);
            assertThat(root.used()).isEqualTo(100);
            child.release(100);
            assertThat(root.used()).isZero();
        }
    }

    /** Direct reservations made while the budget was a leaf stay releasable after it gets children, and only those. */
    @Test
    void directReservationsFromBeforeTheFirstChildStayReleasableAndChildBytesStayProtected() {
        try (Budget root = root("process", 1000)) {
            root.reserve(300);
            assertThat(root.reservedDirectly()).isEqualTo(300);
            Budget child = root.child("cache", 1000, 100);
            child.reserve(250);
            assertThat(root.used()).isEqualTo(550);
            assertThat(root.reservedDirectly()).isEqualTo(300);
            root.reserve(50);
            assertThat(root.reservedDirectly()).isEqualTo(350);
            root.release(350);
            assertThatThrownBy(() -> root.release(1))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("only 0 bytes are reserved directly")
                    .hasMessageContaining("its children hold the other 250");
            assertThat(root.used()).isEqualTo(250);
            child.release(250);
            assertThat(root.used()).isEqualTo(100);
            child.close();
            assertThat(root.used()).isZero();
        }
    }

    // ------------------------------------------------------------------ close

    @Test
    void closeWithBytesHeldReportsTheLeakAndReturnsTheBytesToTheParent() {
        Budget root = root("process", 1000);
        Budget cache = root.child("cache", 800, 100);
        Budget req = cache.child("request-42", 300);
        req.reserve(250);
        cache.reserve(20);
        assertThat(root.used()).isEqualTo(270);

        cache.close();
        assertThat(cache.isClosed()).isTrue();
        assertThat(req.isClosed()).as("children are closed with the parent").isTrue();
        assertThat(root.used()).isZero();
        assertThat(root.children()).isEmpty();
        assertThat(leaks).isNotEmpty();
        String report = leaks.getFirst();
        assertThat(report).contains("process/cache").contains("270 bytes").contains("request-42");
        assertThat(String.join("\n", leaks)).contains("process/cache/request-42");

        // the root can give its whole limit again
        root.reserve(1000);
        root.release(1000);
        root.close();
        assertThat(leaks).hasSize(leaks.size());
    }

    @Test
    void closeWithoutBytesHeldReportsNothing() {
        Budget root = root("process", 1000);
        Budget child = root.child("c", 100, 50);
        child.reserve(10);
        child.release(10);
        child.close();
        assertThat(root.used()).isZero();
        root.close();
        assertThat(leaks).isEmpty();
    }

    /** A child still open with a reservation holds bytes of its parent: closing the parent names it. */
    @Test
    void closingAParentWithAnOpenReservedChildReportsTheChild() {
        Budget root = root("process", 1000);
        Budget child = root.child("sorter", 100, 50);
        root.close();
        assertThat(child.isClosed()).isTrue();
        assertThat(leaks).hasSize(1);
        assertThat(leaks.getFirst()).contains("'process'").contains("50 bytes").contains("sorter");
    }

    @Test
    void afterCloseReserveThrowsAndReleaseIsIgnored() {
        Budget root = root("process", 1000);
        Budget child = root.child("c", 500);
        child.reserve(100);
        root.close();
        root.close(); // twice does nothing
        for (Budget b : List.of(root, child)) {
            assertThatThrownBy(() -> b.reserve(1)).isInstanceOf(IllegalStateException.class).hasMessageContaining(b.path());
            assertThatThrownBy(() -> b.tryReserve(1)).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> b.child("x", 1)).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> b.child("x", 1, 1)).isInstanceOf(IllegalStateException.class);
            assertThatCode(() -> b.release(100)).doesNotThrowAnyException();
            assertThatCode(() -> b.release(1_000_000)).doesNotThrowAnyException();
            assertThat(b.used()).isZero();
        }
        int reports = leaks.size();
        root.close();
        assertThat(leaks).hasSize(reports);
    }

    @Test
    void defaultLeakReporterDoesNotThrow() {
        Budget b = Budget.root("logged", 10);
        b.reserve(5);
        assertThatCode(b::close).doesNotThrowAnyException();
    }

    @Test
    void usageReportListsTheTree() {
        try (Budget root = root("process", 4096)) {
            Budget cache = root.child("cache", 2048, 1024);
            cache.child("req", 1024).reserve(512);
            String report = root.usageReport();
            assertThat(report.lines().toList()).hasSize(3);
            assertThat(report).contains("process").contains("  cache").contains("    req").contains("reservation 1.0 KiB");
        }
    }

    // ------------------------------------------------------------------ concurrency

    /**
     * 4 threads reserve and release random amounts at random levels of a 3-level tree with reservations; after
     * every successful request each budget on the path is within its limit; at the end every count is back to
     * where it started (0, or the reservations below).
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {7, 1234567})
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void concurrentReserveAndReleaseNeverExceedsALimitAndReturnsToZero(long seed) throws Exception {
        Budget root = root("process", 10_000);
        Budget a = root.child("a", 6_000, 1_000);
        Budget b = root.child("b", 7_000);
        List<Budget> budgets = new ArrayList<>(List.of(root, a, b));
        List<Budget> leaves = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            leaves.add(a.child("a" + i, 3_000, i * 300));
            leaves.add(b.child("b" + i, 3_000, i == 0 ? 0 : 500));
        }
        budgets.addAll(leaves);
        List<Budget> targets = new ArrayList<>(leaves);
        targets.add(a);
        targets.add(b);
        int threads = 4;
        int iterations = 20_000;
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicLong successes = new AtomicLong();
        AtomicLong refusals = new AtomicLong();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            long threadSeed = seed * 31 + t;
            Thread worker = new Thread(() -> {
                SplittableRandom random = new SplittableRandom(threadSeed);
                long[] held = new long[targets.size()];
                try {
                    start.await();
                    for (int i = 0; i < iterations && failure.get() == null; i++) {
                        int which = random.nextInt(targets.size());
                        Budget target = targets.get(which);
                        if (held[which] > 0 && random.nextInt(3) == 0) {
                            long amount = 1 + random.nextLong(held[which]);
                            target.release(amount);
                            held[which] -= amount;
                            continue;
                        }
                        long amount = 1 + random.nextLong(1_500);
                        boolean ok;
                        if (random.nextBoolean()) {
                            ok = target.tryReserve(amount);
                        } else {
                            try {
                                target.reserve(amount);
                                ok = true;
                            } catch (BudgetExceededException e) {
                                ok = false;
                            }
                        }
                        if (ok) {
                            held[which] += amount;
                            successes.incrementAndGet();
                            for (Budget onPath = target; onPath != null; onPath = onPath.parent()) {
                                long used = onPath.used();
                                if (used > onPath.limit() || used < 0) {
                                    throw new AssertionError(onPath + " out of bounds after reserving " + amount);
                                }
                            }
                        } else {
                            refusals.incrementAndGet();
                        }
                    }
                    for (int i = 0; i < held.length; i++) {
                        targets.get(i).release(held[i]);
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            });
            workers.add(worker);
            worker.start();
        }
        start.countDown();
        for (Thread worker : workers) {
            worker.join();
        }
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
        assertThat(successes.get()).isPositive();
        assertThat(refusals.get()).as("the limits were reached").isPositive();
        for (Budget budget : budgets) {
            assertThat(budget.peak()).as(budget.path()).isLessThanOrEqualTo(budget.limit());
        }
        for (Budget leaf : leaves) {
            assertThat(leaf.used()).as(leaf.path()).isZero();
            assertThat(leaf.reserved()).as(leaf.path() + " holds only its reservation").isEqualTo(leaf.reservation());
        }
        long aReservations = leaves.stream().filter(l -> l.parent() == a).mapToLong(Budget::reservation).sum();
        long bReservations = leaves.stream().filter(l -> l.parent() == b).mapToLong(Budget::reservation).sum();
        assertThat(a.used()).isEqualTo(aReservations);
        assertThat(b.used()).isEqualTo(bReservations);
        assertThat(a.reserved()).isEqualTo(Math.max(a.reservation(), aReservations));
        assertThat(root.used()).isEqualTo(a.reserved() + b.reserved());
        leaves.forEach(Budget::close);
        assertThat(a.used()).isZero();
        assertThat(b.used()).isZero();
        a.close();
        b.close();
        assertThat(root.used()).isZero();
        root.close();
        assertThat(leaks).isEmpty();
    }

    private static BudgetExceededException catchExceeded(Runnable r) {
        try {
            r.run();
        } catch (BudgetExceededException e) {
            return e;
        }
        throw new AssertionError("expected BudgetExceededException");
    }

    @Nested
    class BudgetExceededExceptionAccessors {
        @Test
        void carriesWhatItWasGiven() {
            BudgetExceededException e = new BudgetExceededException("msg", "a/b", 3, 2, 1);
            assertThat(e).hasMessage("msg");
            assertThat(e.budgetPath()).isEqualTo("a/b");
            assertThat(e.requestedBytes()).isEqualTo(3);
            assertThat(e.limitBytes()).isEqualTo(2);
            assertThat(e.usedBytes()).isEqualTo(1);
            assertThat(e).isInstanceOf(RuntimeException.class);
        }
    }

    @Test
    void aLeakReporterThatThrowsStillLeavesTheBudgetAndItsChildrenClosedAndTheBytesReturned() {
        Budget root = Budget.root("root", 1000, report -> {
            throw new AssertionError("leak: " + report);
        });
        Budget component = root.child("component", 600);
        Budget request = component.child("request", 500);
        request.reserve(100);
        component.reserve(50);
        assertThatThrownBy(component::close).isInstanceOf(AssertionError.class)
                .hasMessageContaining("component").satisfies(e -> assertThat(e.getSuppressed()).hasSize(1));
        assertThat(component.isClosed()).isTrue();
        assertThat(request.isClosed()).isTrue();
        assertThat(root.used()).as("the closed budgets' bytes are back with the parent").isZero();
        root.close();
    }
}
