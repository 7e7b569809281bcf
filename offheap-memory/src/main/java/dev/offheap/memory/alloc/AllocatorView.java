package dev.offheap.memory.alloc;

import dev.offheap.memory.Budget;
import dev.offheap.memory.internal.PlatformMBeans;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import javax.management.ObjectName;

/**
 * The {@link AllocatorMXBean} of every allocator kind: what differs between them comes in as
 * suppliers, read at each call.
 */
final class AllocatorView implements AllocatorMXBean {
    /** The suppliers an allocator gives its view; -1 from one where the allocator keeps no such number. */
    record Readings(LongSupplier allocatedBytes, LongSupplier liveAllocations, LongSupplier footprintBytes,
                    LongSupplier threadCount, LongSupplier problemsSeen, Supplier<String> report) {
    }

    /** The name the bean is registered under: the allocator's, or it with the -N that sets it apart. */
    private final String label;
    private final String kind;
    private final DebugMode debug;
    private final Budget budget;
    private final long capacity;
    private final Readings readings;

    private AllocatorView(String label, String kind, DebugMode debug, Budget budget, long capacity, Readings readings) {
        this.label = label;
        this.kind = kind;
        this.debug = debug;
        this.budget = budget;
        this.capacity = capacity;
        this.readings = readings;
    }

    /**
     * Registers a view of an allocator.
     *
     * @param capacity the allocator's cap in bytes, -1 for none
     * @param budget   the budget it draws from, or null
     * @return the registered name, or null if registration failed (logged; the allocator works without it)
     */
    static ObjectName register(String name, String kind, DebugMode debug, Budget budget, long capacity, Readings readings) {
        return PlatformMBeans.register("Allocator", name, false,
                label -> new AllocatorView(label, kind, debug, budget, capacity, readings));
    }

    @Override
    public String getName() {
        return label;
    }

    @Override
    public String getKind() {
        return kind;
    }

    @Override
    public String getDebugMode() {
        return debug.name();
    }

    @Override
    public long getAllocatedBytes() {
        return readings.allocatedBytes().getAsLong();
    }

    @Override
    public long getLiveAllocations() {
        return readings.liveAllocations().getAsLong();
    }

    @Override
    public long getFootprintBytes() {
        return readings.footprintBytes().getAsLong();
    }

    @Override
    public long getCapacityBytes() {
        return capacity;
    }

    @Override
    public long getThreadCount() {
        return readings.threadCount().getAsLong();
    }

    @Override
    public String getBudgetPath() {
        return budget == null ? "" : budget.path();
    }

    @Override
    public long getBudgetLimitBytes() {
        return budget == null ? -1 : budget.limit();
    }

    @Override
    public long getBudgetUsedBytes() {
        return budget == null ? -1 : budget.used();
    }

    @Override
    public long getProblemsSeen() {
        return readings.problemsSeen().getAsLong();
    }

    @Override
    public String report() {
        return readings.report().get();
    }
}
