package org.apache.arrow.memory;

/**
 * Benchmark access to Arrow's {@code Accountant}, the accounting core of its allocators, whose class
 * and {@code allocateBytes} are package-private. Lives in Arrow's package on the class path so the
 * Budget benchmark can measure Arrow's accounting alone, without its buffer allocation.
 */
public final class AccountantAccess {
    private AccountantAccess() {
    }

    /**
     * Creates an accountant.
     *
     * @param parent        the parent, from this method, or null for a root
     * @param name          its name
     * @param reservation   bytes taken from the parent up front
     * @param maxAllocation its limit in bytes
     * @return the accountant, typed as what callers outside the package may name
     */
    public static AutoCloseable create(AutoCloseable parent, String name, long reservation, long maxAllocation) {
        return new Accountant((Accountant) parent, name, reservation, maxAllocation);
    }

    /**
     * Reserves bytes.
     *
     * @param accountant from {@link #create}
     * @param bytes      how many
     * @return whether the accountant and its ancestors had room
     */
    public static boolean allocate(AutoCloseable accountant, long bytes) {
        return ((Accountant) accountant).allocateBytes(bytes).isOk();
    }

    /**
     * Returns bytes.
     *
     * @param accountant from {@link #create}
     * @param bytes      how many
     */
    public static void release(AutoCloseable accountant, long bytes) {
        ((Accountant) accountant).releaseBytes(bytes);
    }

    /**
     * @param accountant from {@link #create}
     * @return bytes held now
     */
    public static long allocated(AutoCloseable accountant) {
        return ((Accountant) accountant).getAllocatedMemory();
    }
}
