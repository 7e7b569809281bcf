/**
 * offheap's memory layer: hierarchical {@link dev.offheap.memory.Budget budgets}, the page
 * {@link dev.offheap.memory.MemoryManager}, and {@link dev.offheap.memory.Segments} helpers for
 * algorithms on pages. Everything is a {@link java.lang.foreign.MemorySegment}.
 */
module dev.offheap.memory {
    requires java.management;
    requires jdk.management;
    requires jdk.jfr;

    exports dev.offheap.memory;
    // JFR reads the event classes reflectively; nothing else may use the internals.
    exports dev.offheap.memory.internal to jdk.jfr;
}
