package dev.offheap.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@link Budget#close()} promises that a leak reporter that throws gets its exception out "after the budget
 * and its children are closed and their bytes returned all the same", with later failures suppressed in the
 * first. A reporter that throws one shared exception instance (a preallocated "leak!" error) threw it for the
 * parent and again for a child: close added the exception to itself as suppressed, which the JDK refuses with
 * IllegalArgumentException("Self-suppression not permitted"). That escaped from the middle of close: the
 * remaining children stayed open, and the closed budget never returned its bytes to its parent.
 */
class ALeakReporterThatThrowsOneExceptionTwiceStillClosesEverythingTest {

    @Test
    void theSharedExceptionComesOutOnceAndEverythingIsClosedAndReturned() {
        RuntimeException leak = new IllegalStateException("leak!");
        AtomicInteger reports = new AtomicInteger();
        Budget root = Budget.root("root", 10_000, report -> {
            reports.incrementAndGet();
            throw leak;
        });
        Budget component = root.child("component", 5_000, 100);
        Budget first = component.child("first", 1_000);
        Budget second = component.child("second", 1_000, 200);
        first.reserve(300);
        second.reserve(400);
        component.reserve(50);
        assertThat(root.used()).isEqualTo(300 + 400 + 50);

        assertThatThrownBy(component::close).isSameAs(leak);

        assertThat(reports).as("component, first and second each reported").hasValue(3);
        assertThat(leak.getSuppressed()).isEmpty();
        assertThat(component.isClosed()).isTrue();
        assertThat(first.isClosed()).isTrue();
        assertThat(second.isClosed()).isTrue();
        assertThat(root.children()).isEmpty();
        assertThat(root.used()).as("every byte is back with the root").isZero();
        assertThat(root.available()).isEqualTo(10_000);
        root.close();
    }

    @Test
    void aGrandchildThrowingTheParentsExceptionDoesNotStopTheParentsClose() {
        RuntimeException leak = new IllegalStateException("leak!");
        Budget root = Budget.root("root", 10_000, report -> {
            throw leak;
        });
        Budget a = root.child("a", 5_000);
        Budget b = a.child("b", 5_000);
        Budget c = b.child("c", 5_000);
        Budget sibling = a.child("sibling", 5_000, 500);
        a.reserve(10);
        c.reserve(20);

        assertThatThrownBy(a::close).isSameAs(leak);

        assertThat(leak.getSuppressed()).as("one exception, thrown for a, b and c, suppresses nothing").isEmpty();
        assertThat(b.isClosed()).isTrue();
        assertThat(b.used()).as("b took its count in close, as every closed budget does").isZero();
        assertThat(b.reservedDirectly()).isZero();
        assertThat(c.isClosed()).isTrue();
        assertThat(sibling.isClosed()).isTrue();
        assertThat(root.used()).isZero();
        root.close();
    }
}
