/**
 * The cache's implementation: shards with their own memory region, block allocator, hash table,
 * eviction queues and frequency sketch. Not exported; the layout of a region is described once, in
 * {@link dev.offheap.cache.internal.RegionLayout}.
 */
package dev.offheap.cache.internal;
