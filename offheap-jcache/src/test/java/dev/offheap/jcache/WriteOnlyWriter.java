package dev.offheap.jcache;

import java.io.Serial;
import java.io.Serializable;
import java.util.Collection;
import javax.cache.Cache;
import javax.cache.integration.CacheWriter;

/**
 * For tests: a cache writer whose subclass decides only what a single {@code write} does; a bulk write
 * and every delete succeed at once, writing nothing.
 */
abstract class WriteOnlyWriter implements CacheWriter<String, String>, Serializable {
    @Serial
    private static final long serialVersionUID = 1L;

    @Override
    public void writeAll(Collection<Cache.Entry<? extends String, ? extends String>> entries) {
        entries.clear();
    }

    @Override
    public void delete(Object key) {
    }

    @Override
    public void deleteAll(Collection<?> keys) {
        keys.clear();
    }
}
