package dev.offheap.cache;

/** Which entry leaves when the cache is full. */
public enum EvictionPolicy {
    /** Window TinyLFU: admission by estimated frequency; the default, best on skewed and scan-heavy streams. */
    W_TINY_LFU,
    /** Least recently used. */
    LRU
}
