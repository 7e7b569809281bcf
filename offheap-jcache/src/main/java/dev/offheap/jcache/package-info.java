/**
 * The JCache (JSR-107) provider of offheap: {@link dev.offheap.jcache.OffHeapCachingProvider}, found by
 * {@code javax.cache.Caching} through the ServiceLoader, and {@link dev.offheap.jcache.OffHeapConfiguration}
 * for the off-heap settings (capacity in bytes, eviction policy). Caches store keys and values by value,
 * serialized outside the Java heap in an {@link dev.offheap.cache.OffHeapCache}; {@code Cache.unwrap}
 * reaches it. How JCache's semantics map onto it: {@code docs/jcache.md}.
 */
package dev.offheap.jcache;
