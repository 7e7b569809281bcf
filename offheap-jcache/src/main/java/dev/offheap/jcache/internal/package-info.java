/**
 * The implementation of the JCache provider: cache manager, cache, stored value layout, serializers,
 * listener dispatch, statistics and MXBeans. Not exported; reach it only through {@code javax.cache}
 * and {@code unwrap}.
 */
package dev.offheap.jcache.internal;
