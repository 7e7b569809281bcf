package dev.offheap.jcache.internal;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The keys a running {@code loadAll} loads, and which of them a write call changed since before its loader
 * began: a key written meanwhile is not stored by the load (the write wins, as over a read-through load,
 * whose value may be older than it). Kept per key, by the key's serialized bytes (as the store compares
 * keys), so that a write of another key costs no key its load; the change counts per stripe of keys that
 * read-through uses would drop every key of the written key's stripe.
 *
 * <p>Thread-safe. Writers mark under the store's lock of the key, or before their change shows; the load
 * reads the mark under that lock as it stores, so a write either is seen or comes after the store. A write
 * of a stripe that holds none of the keys costs one array read ({@link #mayHold}).
 */
final class KeysBeingLoaded {
    private final boolean[] stripes;
    /** Filled in the constructor and only read after it: published with the object (final field). */
    private final Map<ByteBuffer, Mark> keys;
    private volatile boolean cleared;

    private static final class Mark {
        volatile boolean written;
    }

    /**
     * @param keyContents  the keys' serialized bytes
     * @param keyStripes   the stripe of each key, in the order of {@code keyContents}
     * @param stripeCount  how many stripes there are
     */
    KeysBeingLoaded(List<ByteBuffer> keyContents, int[] keyStripes, int stripeCount) {
        stripes = new boolean[stripeCount];
        keys = HashMap.newHashMap(keyContents.size());
        for (int i = 0; i < keyStripes.length; i++) {
            stripes[keyStripes[i]] = true;
            keys.put(keyContents.get(i), new Mark());
        }
    }

    /** @return whether a key of {@code stripe} may be one of the keys: if not, a write of it needs no mark */
    boolean mayHold(int stripe) {
        return stripes[stripe];
    }

    /** A write call of the key of these bytes (whatever it found): marks it if it is one of the keys. */
    void written(ByteBuffer keyContent) {
        Mark mark = keys.get(keyContent);
        if (mark != null) {
            mark.written = true;
        }
    }

    /** A clear: every key counts as written. */
    void cleared() {
        cleared = true;
    }

    /** @return whether {@code keyContent} is one of the keys */
    boolean holds(ByteBuffer keyContent) {
        return keys.containsKey(keyContent);
    }

    /** @return whether the key of these bytes, one of the keys, was written (or the cache cleared) since */
    boolean writtenSince(ByteBuffer keyContent) {
        Mark mark = keys.get(keyContent);
        return cleared || mark != null && mark.written;
    }
}
