package dev.offheap.memory.alloc;

import java.util.Arrays;
import java.util.function.LongConsumer;

/**
 * A growable list of native addresses: the blocks a close or a stack hands to a free that runs later
 * ({@link dev.offheap.memory.internal.VirtualMemory#afterGrace}). Not thread-safe: its users guard it.
 */
final class AddressList {
    private long[] addresses = new long[4];
    private int size;

    void add(long address) {
        if (size == addresses.length) {
            addresses = Arrays.copyOf(addresses, size * 2);
        }
        addresses[size++] = address;
    }

    void forEach(LongConsumer action) {
        for (int i = 0; i < size; i++) {
            action.accept(addresses[i]);
        }
    }

    void clear() {
        size = 0;
    }
}
