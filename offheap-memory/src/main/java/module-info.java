/**
 * offheap's memory layer: hierarchical {@link dev.offheap.memory.Budget budgets}, the page
 * {@link dev.offheap.memory.MemoryManager}, {@link dev.offheap.memory.Segments} helpers for
 * algorithms on pages, and variable-size {@linkplain dev.offheap.memory.alloc allocators}. Everything is a {@link java.lang.foreign.MemorySegment}.
 */
// dev.offheap.cache and dev.offheap.jcache are built after this module: the qualified export below names modules javac cannot see yet
@SuppressWarnings("module")
module dev.offheap.memory {
    requires java.management;
    requires jdk.management;
    requires jdk.jfr;

    exports dev.offheap.memory;
    exports dev.offheap.memory.alloc;
    // JFR reads the event classes reflectively, and the cache and the JCache layer schedule their
    // clean-ups with WeakSchedule; nothing else may use the internals.
    exports dev.offheap.memory.internal to jdk.jfr, dev.offheap.cache, dev.offheap.jcache;
}
