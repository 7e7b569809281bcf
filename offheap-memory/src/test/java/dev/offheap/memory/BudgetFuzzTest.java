package dev.offheap.memory;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Random trees of {@link Budget}s (children with and without an up-front reservation) and random
 * reserves, tries, releases and closes, checked against a model that computes every budget's use from
 * its own reservations and its children's holdings: a request succeeds exactly when it keeps every
 * budget on the path within its limit, a refused request or an over-release changes nothing, a closed
 * budget returns what it held to its parent and refuses new reservations, and every budget's
 * {@code used}, {@code reserved}, {@code reservedDirectly} and {@code peak} match the model after
 * every step.
 *
 * <p>During {@code ./mvnw verify} this runs in regression mode over the committed inputs in
 * {@code src/test/resources/dev/offheap/memory/BudgetFuzzTestInputs}; with {@code JAZZER_FUZZ=1}
 * Jazzer generates new inputs, guided by coverage (crashes found become new files there).
 */
class BudgetFuzzTest {

    /** A budget and what the model expects of it. */
    private static final class Node {
        final Budget budget;
        final Node parent;
        final long limit;
        final long reservation;
        final List<Node> children = new ArrayList<>();
        long direct;
        long peak;
        boolean closed;

        Node(Budget budget, Node parent, long limit, long reservation) {
            this.budget = budget;
            this.parent = parent;
            this.limit = limit;
            this.reservation = reservation;
        }

        long used() {
            long used = direct;
            for (Node child : children) {
                used += child.reserved();
            }
            return used;
        }

        /** What it holds from its parent: its reservation, or its use where that is larger; 0 once closed. */
        long reserved() {
            return closed ? 0 : parent == null ? used() : Math.max(reservation, used());
        }
    }

    @FuzzTest(maxDuration = "30s")
    void operationsMatchAModelOfTheTree(FuzzedDataProvider data) {
        List<String> leaks = new ArrayList<>();
        long rootLimit = data.consumeLong(0, 4096);
        Node root = new Node(Budget.root("root", rootLimit, leaks::add), null, rootLimit, 0);
        List<Node> nodes = new ArrayList<>(List.of(root));
        int operations = 0;
        while (data.remainingBytes() > 0 && operations++ < 200) {
            Node node = nodes.get(data.consumeInt(0, nodes.size() - 1));
            switch (data.consumeInt(0, 7)) {
                case 0 -> {
                    if (nodes.size() < 8) {
                        addChild(data, nodes, node);
                    }
                }
                case 1, 2 -> {
                    long bytes = data.consumeLong(0, 2048);
                    if (node.closed) {
                        assertThatThrownBy(() -> node.budget.reserve(bytes)).isInstanceOf(IllegalStateException.class);
                    } else if (fits(node, bytes)) {
                        node.budget.reserve(bytes);
                        add(node, bytes);
                    } else {
                        assertThatThrownBy(() -> node.budget.reserve(bytes)).isInstanceOf(BudgetExceededException.class)
                                .hasMessageContaining(node.budget.path());
                    }
                }
                case 3 -> {
                    long bytes = data.consumeLong(0, 2048);
                    if (node.closed) {
                        assertThatThrownBy(() -> node.budget.tryReserve(bytes)).isInstanceOf(IllegalStateException.class);
                    } else {
                        boolean fits = fits(node, bytes);
                        assertThat(node.budget.tryReserve(bytes)).as("tryReserve(%d) at %s", bytes, node.budget.path())
                                .isEqualTo(fits);
                        if (fits) {
                            add(node, bytes);
                        }
                    }
                }
                case 4, 5 -> {
                    long bytes = data.consumeBoolean() ? node.direct : data.consumeLong(0, 2048);
                    if (node.closed) {
                        node.budget.release(bytes); // ignored: close returned everything
                    } else if (bytes <= node.direct) {
                        node.budget.release(bytes);
                        node.direct -= bytes;
                    } else {
                        assertThatThrownBy(() -> node.budget.release(bytes)).as("an over-release")
                                .isInstanceOf(IllegalStateException.class);
                    }
                }
                case 6 -> {
                    if (node != root && !node.closed) {
                        boolean leaking = node.used() > 0;
                        int leaksBefore = leaks.size();
                        node.budget.close();
                        close(node);
                        assertThat(leaks.size() > leaksBefore).as("a leak reported for %s", node.budget.path())
                                .isEqualTo(leaking);
                    }
                }
                default -> assertThatThrownBy(() -> node.budget.reserve(-1)).isInstanceOf(IllegalArgumentException.class);
            }
            for (Node n : nodes) {
                check(n);
            }
        }
        root.budget.close();
        assertThat(root.budget.isClosed()).isTrue();
    }

    private static void addChild(FuzzedDataProvider data, List<Node> nodes, Node parent) {
        long limit = data.consumeLong(0, 4096);
        long reservation = data.consumeBoolean() ? 0 : data.consumeLong(0, limit);
        String name = "b" + nodes.size();
        if (parent.closed) {
            assertThatThrownBy(() -> parent.budget.child(name, limit, reservation)).isInstanceOf(IllegalStateException.class);
            return;
        }
        Node child;
        if (reservation == 0) {
            child = new Node(parent.budget.child(name, limit), parent, limit, 0);
        } else if (fits(parent, reservation)) { // the parent takes the reservation as if reserved itself
            child = new Node(parent.budget.child(name, limit, reservation), parent, limit, reservation);
        } else {
            assertThatThrownBy(() -> parent.budget.child(name, limit, reservation))
                    .isInstanceOf(BudgetExceededException.class);
            return;
        }
        parent.children.add(child);
        notePeaks(parent);
        nodes.add(child);
    }

    /**
     * Whether {@code bytes} more reserved at {@code node} keep it and every ancestor within its limit.
     * A parent sees a child grow only past the child's reservation.
     */
    private static boolean fits(Node node, long bytes) {
        if (node.used() + bytes > node.limit) {
            return false;
        }
        if (node.parent == null) {
            return true;
        }
        long grows = Math.max(node.reservation, node.used() + bytes) - node.reserved();
        return fits(node.parent, grows);
    }

    private static void add(Node node, long bytes) {
        node.direct += bytes;
        notePeaks(node);
    }

    private static void notePeaks(Node node) {
        for (Node n = node; n != null; n = n.parent) {
            n.peak = Math.max(n.peak, n.used());
        }
    }

    private static void close(Node node) {
        for (Node child : node.children) {
            if (!child.closed) {
                close(child);
            }
        }
        node.closed = true;
        node.direct = 0;
        node.children.clear();
    }

    private static void check(Node n) {
        Budget b = n.budget;
        assertThat(b.isClosed()).as("%s closed", b.path()).isEqualTo(n.closed);
        if (n.closed) {
            return;
        }
        assertThat(b.used()).as("%s used", b.path()).isEqualTo(n.used());
        assertThat(b.reserved()).as("%s reserved", b.path()).isEqualTo(n.reserved());
        assertThat(b.reservedDirectly()).as("%s reserved directly", b.path()).isEqualTo(n.direct);
        assertThat(b.peak()).as("%s peak", b.path()).isEqualTo(n.peak);
        assertThat(b.available()).as("%s available", b.path()).isEqualTo(Math.max(0, n.limit - n.used()));
        assertThat(b.limit()).isEqualTo(n.limit);
    }
}
