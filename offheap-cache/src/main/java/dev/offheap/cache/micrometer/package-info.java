/**
 * Micrometer metrics of an {@link dev.offheap.cache.OffHeapCache}. Micrometer is an optional dependency of
 * the cache: only applications that use this package need {@code io.micrometer:micrometer-core}.
 */
package dev.offheap.cache.micrometer;
