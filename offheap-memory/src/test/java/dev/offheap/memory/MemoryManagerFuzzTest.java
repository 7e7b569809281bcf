package dev.offheap.memory;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

/**
 * Random sequences of page allocations, page groups, releases, reservations, bad releases and spills on a
 * {@link MemoryManager}, checked against a model of what each owner holds: a request succeeds exactly
 * when it fits in what is left after the owners with a spill callback gave their pages back, a refused
 * request changes nothing, no page is ever held twice (each page keeps the stamp its holder wrote), a
 * released page's old segment throws, bad releases (a second release, a slice, a foreign segment, a
 * reservation larger than held) are refused with the documented exception and change nothing, and the
 * manager's counts match the model after every step.
 *
 * <p>During {@code ./mvnw verify} this runs in regression mode over the committed inputs in
 * {@code src/test/resources/dev/offheap/memory/MemoryManagerFuzzTestInputs}; with {@code JAZZER_FUZZ=1}
 * Jazzer generates new inputs, guided by coverage (crashes found become new files there).
 */
class MemoryManagerFuzzTest {

    private static final int PAGE_SIZE = 4096;
    private static final int OWNERS = 3;
    /** The owner that registers a spill callback which gives back every page it holds. */
    private static final int SPILLING_OWNER = 2;

    private record Held(MemorySegment page, long stamp) {
    }

    /** A page group and the stamped segments of its pages. */
    private record HeldGroup(PageGroup group, List<Held> pages) {
    }

    private static final class Model {
        final List<List<Held>> pages = new ArrayList<>();
        final List<List<HeldGroup>> groups = new ArrayList<>();
        final long[] reserved = new long[OWNERS];
        final List<MemorySegment> released = new ArrayList<>();
        long nextStamp = 1;

        Model() {
            for (int o = 0; o < OWNERS; o++) {
                pages.add(new ArrayList<>());
                groups.add(new ArrayList<>());
            }
        }

        long usedBytes() {
            long used = 0;
            for (int o = 0; o < OWNERS; o++) {
                used += (long) pagesOf(o) * PAGE_SIZE + reserved[o];
            }
            return used;
        }

        int usedPages() {
            int used = 0;
            for (int o = 0; o < OWNERS; o++) {
                used += pagesOf(o);
            }
            return used;
        }

        /** Single pages and pages of groups the owner holds. */
        int pagesOf(int owner) {
            int count = pages.get(owner).size();
            for (HeldGroup group : groups.get(owner)) {
                count += group.pages.size();
            }
            return count;
        }

        /** Stamps every page of a new group and records it. */
        void holdGroup(int owner, PageGroup group) {
            List<Held> held = new ArrayList<>();
            for (int i = 0; i < group.size(); i++) {
                MemorySegment page = group.page(i);
                Held h = new Held(page, nextStamp++);
                page.fill((byte) h.stamp);
                page.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, h.stamp);
                held.add(h);
            }
            groups.get(owner).add(new HeldGroup(group, held));
        }

        /** Forgets a group that is about to be released; its pages' stamps must still be its own. */
        void forgetGroup(HeldGroup group) {
            for (Held h : group.pages) {
                forget(h);
            }
        }

        Held hold(int owner, MemorySegment page) {
            Held held = new Held(page, nextStamp++);
            page.fill((byte) held.stamp);
            page.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, held.stamp);
            pages.get(owner).add(held);
            return held;
        }

        void forget(Held held) {
            checkStamp(held);
            released.add(held.page);
        }
    }

    @FuzzTest(maxDuration = "30s")
    void operationsMatchAModelOfWhatEachOwnerHolds(FuzzedDataProvider data) {
        int totalPages = data.consumeInt(1, 48);
        boolean shared = data.consumeInt(0, 7) == 0; // each release of a SHARED page is a handshake: rarer
        Model model = new Model();
        try (MemoryManager manager = MemoryManager.builder().name("fuzz").totalSize((long) totalPages * PAGE_SIZE)
                .pageSize(PAGE_SIZE).type(MemoryType.NATIVE)
                .pageAccess(shared ? PageAccess.SHARED : PageAccess.CONFINED)
                .preallocate(data.consumeBoolean()).registerMBean(false).leakReporter(report -> { }).build()) {
            if (data.consumeBoolean()) {
                manager.registerSpillCallback(owner(SPILLING_OWNER), (m, wanted) -> {
                    List<Held> held = model.pages.get(SPILLING_OWNER);
                    long freed = (long) model.pagesOf(SPILLING_OWNER) * PAGE_SIZE;
                    for (Held h : held) {
                        model.forget(h);
                        m.release(h.page);
                    }
                    held.clear();
                    for (HeldGroup group : model.groups.get(SPILLING_OWNER)) {
                        model.forgetGroup(group);
                        group.group().close();
                    }
                    model.groups.get(SPILLING_OWNER).clear();
                    return freed;
                });
            }
            int operations = 0;
            while (data.remainingBytes() > 0 && operations++ < 200) {
                int owner = data.consumeInt(0, OWNERS - 1);
                switch (data.consumeInt(0, 13)) {
                    case 0, 1, 2 -> allocate(manager, model, owner, data.consumeBoolean() ? 1 : data.consumeInt(1, 8), totalPages);
                    case 3, 4 -> {
                        List<Held> held = model.pages.get(owner);
                        if (!held.isEmpty()) {
                            Held victim = held.remove(data.consumeInt(0, held.size() - 1));
                            model.forget(victim);
                            manager.release(victim.page);
                            assertThatThrownBy(() -> victim.page.get(ValueLayout.JAVA_BYTE, 0))
                                    .as("a released page's old segment").isInstanceOf(IllegalStateException.class);
                        }
                    }
                    case 5 -> {
                        List<Held> held = model.pages.get(owner);
                        int count = data.consumeInt(0, held.size());
                        List<MemorySegment> batch = new ArrayList<>();
                        for (int i = 0; i < count; i++) {
                            Held victim = held.removeLast();
                            model.forget(victim);
                            batch.add(victim.page);
                        }
                        manager.release(batch);
                    }
                    case 6 -> {
                        for (Held h : model.pages.get(owner)) {
                            model.forget(h);
                        }
                        model.pages.get(owner).clear();
                        for (HeldGroup group : model.groups.get(owner)) {
                            model.forgetGroup(group);
                        }
                        List<HeldGroup> released = new ArrayList<>(model.groups.get(owner));
                        model.groups.get(owner).clear();
                        released.forEach(group -> assertThat(group.group().isAlive()).isTrue());
                        model.reserved[owner] = 0;
                        manager.releaseAll(owner(owner));
                        for (HeldGroup group : released) {
                            assertThat(group.group().isAlive()).as("a group after releaseAll").isFalse();
                            assertThatThrownBy(() -> group.group().close()).isInstanceOf(IllegalStateException.class);
                        }
                    }
                    case 7 -> {
                        long bytes = data.consumeLong(0, 3L * PAGE_SIZE);
                        reserve(manager, model, owner, bytes, totalPages);
                    }
                    case 8 -> {
                        long bytes = data.consumeLong(0, 2L * PAGE_SIZE);
                        if (bytes <= model.reserved[owner]) {
                            manager.releaseReservation(owner(owner), bytes);
                            model.reserved[owner] -= bytes;
                        } else {
                            assertThatThrownBy(() -> manager.releaseReservation(owner(owner), bytes))
                                    .isInstanceOf(IllegalStateException.class);
                        }
                    }
                    case 9 -> {
                        if (!model.released.isEmpty()) {
                            MemorySegment stale = model.released.get(data.consumeInt(0, model.released.size() - 1));
                            assertThatThrownBy(() -> manager.release(stale)).as("a second release")
                                    .isInstanceOf(IllegalStateException.class);
                        }
                    }
                    case 11 -> allocateGroup(manager, model, owner, data.consumeInt(1, 8), totalPages);
                    case 12 -> {
                        List<HeldGroup> groups = model.groups.get(owner);
                        if (!groups.isEmpty()) {
                            HeldGroup victim = groups.remove(data.consumeInt(0, groups.size() - 1));
                            model.forgetGroup(victim);
                            victim.group().close();
                            for (Held h : victim.pages()) {
                                assertThatThrownBy(() -> h.page.get(ValueLayout.JAVA_BYTE, 0))
                                        .as("a closed group's page").isInstanceOf(IllegalStateException.class);
                            }
                        }
                    }
                    case 13 -> {
                        List<HeldGroup> groups = model.groups.get(owner);
                        if (!groups.isEmpty()) {
                            HeldGroup group = groups.get(data.consumeInt(0, groups.size() - 1));
                            MemorySegment page = group.pages().get(data.consumeInt(0, group.pages().size() - 1)).page;
                            assertThatThrownBy(() -> manager.release(page)).as("a group's page released alone")
                                    .isInstanceOf(IllegalArgumentException.class);
                        }
                    }
                    default -> {
                        List<Held> held = model.pages.get(owner);
                        MemorySegment foreign = held.isEmpty() || data.consumeBoolean()
                                ? Arena.ofAuto().allocate(PAGE_SIZE, PAGE_SIZE)
                                : held.get(data.consumeInt(0, held.size() - 1)).page.asSlice(0, PAGE_SIZE / 2);
                        assertThatThrownBy(() -> manager.release(foreign)).as("a foreign segment or a slice")
                                .isInstanceOf(IllegalArgumentException.class);
                    }
                }
                check(manager, model);
            }
            for (int o = 0; o < OWNERS; o++) {
                model.pages.get(o).forEach(MemoryManagerFuzzTest::checkStamp);
                for (HeldGroup group : model.groups.get(o)) {
                    group.pages().forEach(MemoryManagerFuzzTest::checkStamp);
                }
            }
        }
        for (int o = 0; o < OWNERS; o++) {
            List<Held> all = new ArrayList<>(model.pages.get(o));
            model.groups.get(o).forEach(group -> all.addAll(group.pages()));
            for (Held h : all) {
                assertThatThrownBy(() -> h.page.get(ValueLayout.JAVA_BYTE, 0)).as("a page after close")
                        .isInstanceOf(IllegalStateException.class);
            }
        }
    }

    private static void allocate(MemoryManager manager, Model model, int owner, int count, int totalPages) {
        List<MemorySegment> pages;
        try {
            pages = count == 1 ? List.of(manager.allocatePage(owner(owner))) : manager.allocatePages(owner(owner), count);
        } catch (BudgetExceededException refused) {
            // the spill callback (if any) ran and the model knows what it gave back
            assertThat(model.usedBytes() + (long) count * PAGE_SIZE).as("a refused request did not fit")
                    .isGreaterThan((long) totalPages * PAGE_SIZE);
            return;
        }
        assertThat(pages).hasSize(count);
        for (MemorySegment page : pages) {
            assertThat(page.byteSize()).isEqualTo(PAGE_SIZE);
            model.hold(owner, page);
        }
        assertThat(model.usedBytes()).as("a granted request fits").isLessThanOrEqualTo((long) totalPages * PAGE_SIZE);
    }

    private static void allocateGroup(MemoryManager manager, Model model, int owner, int count, int totalPages) {
        PageGroup group;
        try {
            group = manager.allocateGroup(owner(owner), count);
        } catch (BudgetExceededException refused) {
            assertThat(model.usedBytes() + (long) count * PAGE_SIZE).as("a refused group did not fit")
                    .isGreaterThan((long) totalPages * PAGE_SIZE);
            return;
        }
        assertThat(group.size()).isEqualTo(count);
        model.holdGroup(owner, group);
        assertThat(model.usedBytes()).as("a granted group fits").isLessThanOrEqualTo((long) totalPages * PAGE_SIZE);
    }

    private static void reserve(MemoryManager manager, Model model, int owner, long bytes, int totalPages) {
        try {
            manager.reserve(owner(owner), bytes);
        } catch (BudgetExceededException refused) {
            assertThat(model.usedBytes() + bytes).as("a refused reservation did not fit")
                    .isGreaterThan((long) totalPages * PAGE_SIZE);
            return;
        }
        model.reserved[owner] += bytes;
        assertThat(model.usedBytes()).as("a granted reservation fits").isLessThanOrEqualTo((long) totalPages * PAGE_SIZE);
    }

    private static void check(MemoryManager manager, Model model) {
        assertThat(manager.usedPages()).as("pages held").isEqualTo(model.usedPages());
        assertThat(manager.usedBytes()).as("bytes used").isEqualTo(model.usedBytes());
        Map<String, Long> expected = new HashMap<>();
        for (int o = 0; o < OWNERS; o++) {
            long bytes = (long) model.pagesOf(o) * PAGE_SIZE + model.reserved[o];
            if (bytes > 0) {
                expected.put(owner(o), bytes);
            }
        }
        Map<String, Long> actual = new HashMap<>(manager.usageByOwner());
        actual.values().removeIf(bytes -> bytes == 0);
        assertThat(actual).as("use per owner").isEqualTo(expected);
    }

    private static void checkStamp(Held held) {
        long stamp = held.page.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
        byte last = held.page.get(ValueLayout.JAVA_BYTE, PAGE_SIZE - 1);
        if (stamp != held.stamp || last != (byte) held.stamp) {
            fail("page at 0x%x holds stamp %d (last byte %d), its holder wrote %d: held by two owners?",
                    held.page.address(), stamp, last, held.stamp);
        }
    }

    private static String owner(int index) {
        return "owner-" + index;
    }
}
