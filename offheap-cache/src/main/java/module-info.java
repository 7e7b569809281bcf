/**
 * offheap's cache: keys and values serialized outside the Java heap, a capacity that counts every
 * byte the cache uses, and a Caffeine-like API. See {@link dev.offheap.cache.OffHeapCache}.
 */
module dev.offheap.cache {
    requires transitive dev.offheap.memory;
    requires java.management;

    exports dev.offheap.cache;
}
