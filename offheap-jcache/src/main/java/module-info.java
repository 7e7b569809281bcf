/**
 * A JCache (JSR-107) provider whose caches keep their entries serialized outside the Java heap, in an
 * {@link dev.offheap.cache.OffHeapCache}. See {@link dev.offheap.jcache.OffHeapCachingProvider}.
 */
// cache-api 1.1.1 has no module descriptor: it is the automatic module cache.api, which users need too.
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module dev.offheap.jcache {
    requires transitive dev.offheap.cache;
    requires transitive cache.api;
    requires java.management;

    exports dev.offheap.jcache;

    provides javax.cache.spi.CachingProvider with dev.offheap.jcache.OffHeapCachingProvider;
}
