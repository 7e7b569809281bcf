package dev.offheap.memory.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Deque;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class SlotStackTest {

    @Test
    void popAllTakesFromTheTopInOrderAndStopsWhenEmpty() {
        SlotStack stack = new SlotStack(10);
        for (int slot = 0; slot < 5; slot++) {
            stack.push(slot);
        }
        int[] into = new int[8];
        assertEquals(3, stack.popAll(into, 1, 3));
        assertArrayEquals(new int[] {0, 4, 3, 2, 0, 0, 0, 0}, into);
        assertEquals(2, stack.popAll(into, 0, 8));
        assertEquals(1, into[0]);
        assertEquals(0, into[1]);
        assertTrue(stack.isEmpty());
        assertEquals(0, stack.popAll(into, 0, 8));
    }

    @Test
    void pushAllPutsTheFirstOnTopAboveWhatWasThere() {
        SlotStack stack = new SlotStack(10);
        stack.push(9);
        stack.pushAll(new int[] {7, 1, 2, 3, 7}, 1, 3);
        assertEquals(1, stack.pop());
        assertEquals(2, stack.pop());
        assertEquals(3, stack.pop());
        assertEquals(9, stack.pop());
        assertEquals(-1, stack.pop());
        stack.pushAll(new int[] {5}, 0, 0);
        assertTrue(stack.isEmpty());
    }

    /** Random single and batch operations behave as a LIFO deque does. */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 42, 4711})
    void batchesAndSinglesMatchADeque(long seed) {
        Random random = new Random(seed);
        int capacity = 64;
        SlotStack stack = new SlotStack(capacity);
        Deque<Integer> model = new ArrayDeque<>();
        List<Integer> out = new ArrayList<>();
        for (int slot = 0; slot < capacity; slot++) {
            out.add(slot);
        }
        for (int step = 0; step < 5_000; step++) {
            switch (random.nextInt(4)) {
                case 0 -> {
                    if (!out.isEmpty()) {
                        int slot = out.remove(random.nextInt(out.size()));
                        stack.push(slot);
                        model.push(slot);
                    }
                }
                case 1 -> {
                    int n = random.nextInt(out.size() + 1);
                    int[] batch = new int[n + 2];
                    for (int i = 0; i < n; i++) {
                        batch[1 + i] = out.remove(random.nextInt(out.size()));
                    }
                    stack.pushAll(batch, 1, n);
                    for (int i = n - 1; i >= 0; i--) {
                        model.push(batch[1 + i]);
                    }
                }
                case 2 -> {
                    int slot = stack.pop();
                    assertEquals(model.isEmpty() ? -1 : model.pop(), slot);
                    if (slot >= 0) {
                        out.add(slot);
                    }
                }
                default -> {
                    int want = random.nextInt(20);
                    int[] into = new int[want];
                    int got = stack.popAll(into, 0, want);
                    assertEquals(Math.min(want, model.size()), got);
                    for (int i = 0; i < got; i++) {
                        assertEquals(model.pop(), into[i]);
                        out.add(into[i]);
                    }
                }
            }
            assertEquals(model.isEmpty(), stack.isEmpty());
        }
    }

    /** Threads pop and push batches and singles at once; at the end every slot is in the stack exactly once. */
    @Test
    void concurrentBatchesNeitherLoseNorDuplicateSlots() throws Exception {
        int capacity = 256;
        int threads = 4;
        SlotStack stack = new SlotStack(capacity);
        for (int slot = 0; slot < capacity; slot++) {
            stack.push(slot);
        }
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                long seed = t;
                done.add(pool.submit(() -> {
                    Random random = new Random(seed);
                    int[] held = new int[capacity];
                    start.await();
                    for (int round = 0; round < 20_000; round++) {
                        int want = 1 + random.nextInt(16);
                        int got = random.nextBoolean() ? stack.popAll(held, 0, want) : popSingles(stack, held, want);
                        if (random.nextBoolean()) {
                            stack.pushAll(held, 0, got);
                        } else {
                            for (int i = got - 1; i >= 0; i--) {
                                stack.push(held[i]);
                            }
                        }
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        BitSet seen = new BitSet(capacity);
        int[] all = new int[capacity + 1];
        int n = stack.popAll(all, 0, capacity + 1);
        assertEquals(capacity, n);
        for (int i = 0; i < n; i++) {
            assertTrue(!seen.get(all[i]), "slot " + all[i] + " twice");
            seen.set(all[i]);
        }
        assertTrue(stack.isEmpty());
    }

    private static int popSingles(SlotStack stack, int[] into, int want) {
        int got = 0;
        while (got < want) {
            int slot = stack.pop();
            if (slot < 0) {
                break;
            }
            into[got++] = slot;
        }
        return got;
    }
}
