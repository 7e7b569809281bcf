/**
 * offheap's cache: keys and values serialized outside the Java heap, a capacity that counts every
 * byte the cache uses, and a Caffeine-like API. See {@link dev.offheap.cache.OffHeapCache}.
 */
// micrometer-core has no module-info of its own, only an Automatic-Module-Name
// dev.offheap.jcache is built after this module: the qualified export below names a module javac cannot see yet
@SuppressWarnings({"requires-automatic", "module"})
module dev.offheap.cache {
    requires transitive dev.offheap.memory;
    requires java.management;
    // optional: only dev.offheap.cache.micrometer uses it, and only applications that use that package need it.
    // Not transitive: javac looks for a module required "static transitive" on the module path of every module
    // that reads this one, so an application that never binds metrics did not compile without micrometer-core.
    // An application that uses OffHeapCacheMetrics requires micrometer.core itself, for its MeterRegistry.
    requires static micrometer.core;

    exports dev.offheap.cache;
    exports dev.offheap.cache.micrometer;
    // the JCache layer's expiry sweep walks the entries in place (OffHeapCacheImpl.removeEntriesIf);
    // nothing else may use the internals
    exports dev.offheap.cache.internal to dev.offheap.jcache;
}
