package dev.offheap.cache;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Iterator;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * A key/value cache whose keys and values live outside the Java heap, serialized, so the garbage
 * collector never scans or copies the cached data, with a capacity in bytes that counts everything the
 * cache uses (entry headers, hash table and frequency sketch included).
 *
 * <p>Values are copies: {@code put} serializes the value into the cache, {@code get} deserializes a new
 * object. {@link #read(Object, Function)} reads a value in place without copying it.
 *
 * <p>Threading: every method may be called from any number of threads at once. Reads do not block each
 * other. Iterators are weakly consistent: they never throw {@link java.util.ConcurrentModificationException}
 * and see each entry at most once.
 *
 * <p>Nulls: a null key or value throws {@link NullPointerException} naming which. After {@link #close()}
 * every method but {@code close} and {@code isClosed} throws {@link IllegalStateException}.
 *
 * @param <K> key type
 * @param <V> value type
 */
public interface OffHeapCache<K, V> extends AutoCloseable {

    /**
     * Starts a builder.
     *
     * @param keys   how keys become bytes
     * @param values how values become bytes
     * @param <K>    key type
     * @param <V>    value type
     * @return a new builder
     * @throws NullPointerException if a serializer is null
     */
    static <K, V> CacheBuilder<K, V> builder(Serializer<K> keys, Serializer<V> values) {
        return new CacheBuilder<>(keys, values);
    }

    /**
     * @param key the key
     * @return the value, or null if absent or expired; counts a hit or a miss
     */
    V getIfPresent(K key);

    /**
     * Gets the value, loading it with the builder's {@link CacheLoader} if absent, one load per key at a
     * time as {@link #get(Object, Function)} does (which says what a failed load throws, and to whom).
     *
     * @param key the key
     * @return the value (never null: a loader that returns null throws)
     * @throws IllegalStateException if the cache was built without a loader, or is closed
     * @throws CacheLoadException    if the loader threw an exception or returned null, or if this call waited
     *                               for another thread's load that failed
     */
    V get(K key);

    /**
     * Gets the value, or computes it with {@code loader} and stores it. At most one load runs per key at a
     * time: concurrent callers for the same key wait and get its result or its failure. A loader that
     * asks for the key it is loading, or for a key whose load waits (through other threads' loads, of any
     * cache) for this one, fails with {@link IllegalStateException} as its cause instead of waiting forever.
     *
     * <p>A failed load, here and in {@link #get(Object)}, {@link #getAll} and {@link #readOrLoad}, stores
     * nothing. The caller whose thread ran the loader gets a {@link CacheLoadException} whose cause is the
     * loader's exception (checked or unchecked; none for a loader that returned null); an {@link Error} the
     * loader throws passes as it is, as in Caffeine, and so does a failure to store the loaded value
     * ({@link ValueTooLargeException}, {@link SerializationException}). Each caller that waited for that
     * load gets a {@code CacheLoadException} of its own, never the object the loading thread throws: its
     * cause is the loader's exception, or else what the loading thread threw (the Error, the
     * {@code ValueTooLargeException}); a caller that waited for a load the cache's {@link #close()} ended
     * gets an {@link IllegalStateException} of its own.
     *
     * <p>A write of the key made while its load runs wins over the load, here and in {@link #get(Object)},
     * {@link #getAll} and {@link #readOrLoad}: any call that writes or may remove the key ({@code put},
     * {@code putAll}, {@code putIfAbsent}, {@code replace}, {@link #compute} and the map view's computes and
     * {@code merge}, {@code remove}, {@code invalidate}, {@code invalidateAll}, an iterator's or view's
     * removal), whatever it finds, even a compute whose function gives null for the absent key. The loaded
     * value, read from the source before that write, is then not stored: it is returned to the caller that
     * ran the loader, whose call began before the write, while the callers that waited for the load read the
     * key again once it ends, getting the write's value or, if the key is absent, loading it anew (one load
     * at a time still).
     *
     * @param key    the key
     * @param loader computes the value of an absent key
     * @return the value
     * @throws CacheLoadException     if the loader threw an exception or returned null, or if this call waited
     *                                for another thread's load that failed
     * @throws ValueTooLargeException if the value this call loaded is larger than
     *                                {@link CacheBuilder#maxEntryBytes(long)}
     * @throws SerializationException if the value serializer threw or lied about the size of the value this
     *                                call loaded
     * @throws IllegalStateException  if the cache is closed
     */
    V get(K key, Function<? super K, ? extends V> loader);

    /**
     * @param keys the keys
     * @return the values of the keys present, in the order {@code keys} gave them, a key given twice once (at
     *         its first place), as in Caffeine
     */
    Map<K, V> getAllPresent(Iterable<? extends K> keys);

    /**
     * Gets the values, loading the absent ones with the builder's {@link CacheLoader}.
     *
     * <p>A value {@code loadAll} gave for an asked key that cannot be stored (over
     * {@link CacheBuilder#maxEntryBytes(long)}, or refused by the value serializer) does not stop the others:
     * every other value is stored, and the callers waiting for each key get that key's outcome (its value,
     * or a {@link CacheLoadException} whose cause is what kept its own value from being stored, as
     * {@link #get(Object, Function)} says); then this call throws that failure as it is, the first in the
     * order asked, with those of later keys suppressed in it. The statistics count the {@code loadAll} as
     * one load failure. A key {@code loadAll} gave that was not asked for and cannot be stored is skipped
     * (logged as a warning): the call does not fail for it.
     *
     * @param keys the keys
     * @return the value of every key present or loaded, in the order {@code keys} gave them (loaded keys
     *         in their places among the present ones), a key given twice once (at its first place); keys the
     *         loader's {@link CacheLoader#loadAll} left out of its result are absent from it (and not
     *         cached), and keys it added that were not asked for are cached but not in it, as in Caffeine
     * @throws IllegalStateException  if the cache was built without a loader, or is closed
     * @throws CacheLoadException     if {@code loadAll} threw an exception or returned null, or if this call
     *                                waited for another thread's load of one of the keys that failed (see
     *                                {@link #get(Object, Function)}: an Error of the loader passes as it is)
     * @throws ValueTooLargeException if a value {@code loadAll} gave for an asked key is larger than
     *                                {@link CacheBuilder#maxEntryBytes(long)} (the other values are stored)
     * @throws SerializationException if the value serializer threw or lied about the size of a value
     *                                {@code loadAll} gave for an asked key (the other values are stored)
     */
    Map<K, V> getAll(Iterable<? extends K> keys);

    /**
     * Reads a value in place, without deserializing or copying it.
     *
     * @param key    the key
     * @param reader gets a read-only segment of exactly the value's bytes, valid only during the call
     *               (using it afterwards throws {@link IllegalStateException}, using it from another thread
     *               {@link WrongThreadException}). It runs under the read lock of the key's segment: reads
     *               go on, writes to that segment wait for it, and a write of this cache or {@link #close()}
     *               from inside it throws {@link IllegalStateException} (it would wait for that lock forever).
     *               Another cache may be used; of two threads whose readers (or computes) each write
     *               the other's cache, one gets an {@link IllegalStateException} naming the deadlock, as
     *               does one of a reader that waits for another thread's load whose loader writes this
     *               cache and that loader (whose waiting callers then get a {@link CacheLoadException} with
     *               its failure as the cause).
     * @param <R>    what the reader returns
     * @return the reader's result, or null if the key is absent (the reader is then not called)
     */
    <R> R read(K key, Function<? super MemorySegment, ? extends R> reader);

    /**
     * Reads a value in place as {@link #read(Object, Function)} does, but without it counting as an
     * access: no hit or miss in the statistics, no effect on the eviction order, and no new
     * {@linkplain CacheBuilder#expireAfterAccess(Duration) access deadline}. For code that inspects
     * entries on the cache's behalf, such as a sweep that looks at an expiry time kept inside the value,
     * and should not make them look used.
     *
     * @param key    the key
     * @param reader gets a read-only segment of exactly the value's bytes, valid only during the call, as in
     *               {@link #read(Object, Function)}
     * @param <R>    what the reader returns
     * @return the reader's result, or null if the key is absent or expired (the reader is then not called)
     * @throws NullPointerException  if {@code key} or {@code reader} is null
     * @throws IllegalStateException if the cache is closed
     */
    <R> R readQuietly(K key, Function<? super MemorySegment, ? extends R> reader);

    /**
     * Reads a value in place, loading it first if it is absent: {@link #read(Object, Function)} and
     * {@link #get(Object, Function)} in one call, for serving values end to end without copying them onto
     * the heap. On a miss {@code loader} runs at most once per key at a time (concurrent callers wait for
     * it), its value is stored, and {@code reader} sees the stored bytes. A value over 16 KiB is staged for
     * the store in native memory, so with {@link Serializer#segments()} values and a loader that fills a
     * native buffer of its own thread, reused from load to load, neither hits nor misses leave garbage of
     * the value's size on the heap.
     *
     * <p>The loaded value is used only by the thread that loaded it: callers that waited for another
     * thread's load read the stored bytes, never that thread's value. If the stored value is evicted or
     * expires before the loading thread reads it (a cache much smaller than its working set), the reader
     * sees the loaded value serialized into memory of this call only; a waiting caller then tries again.
     * A failed load throws as {@link #get(Object, Function)} says: a caller that waited for it gets a
     * {@link CacheLoadException} of its own.
     *
     * @param key    the key
     * @param loader computes the value of an absent key; its result is not kept after the call
     * @param reader gets a read-only segment of exactly the value's bytes, valid only during the call, as in
     *               {@link #read(Object, Function)}
     * @param <R>    what the reader returns
     * @return the reader's result
     * @throws CacheLoadException     if the loader threw an exception or returned null, or if this call waited
     *                                for another thread's load that failed
     * @throws ValueTooLargeException if the entry this call loaded is larger than
     *                                {@link CacheBuilder#maxEntryBytes(long)}
     * @throws SerializationException if the value serializer threw or lied about its size
     * @throws IllegalStateException  if the cache is closed
     */
    <R> R readOrLoad(K key, Function<? super K, ? extends V> loader, Function<? super MemorySegment, ? extends R> reader);

    /**
     * Stores a value, replacing any value of the key.
     *
     * @param key   the key
     * @param value the value
     * @throws ValueTooLargeException if the entry is larger than {@link CacheBuilder#maxEntryBytes(long)}
     * @throws SerializationException if a serializer threw or lied about its size
     */
    void put(K key, V value);

    /**
     * Stores a value that expires after {@code timeToLive}, overriding the builder's expiry for this entry.
     * The time to live belongs to this write: a later write of the key without one ({@link #put(Object, Object)},
     * {@code replace}, {@link #compute}, {@code merge}, a load) gives the entry the builder's expiry again, as
     * any new value of the key gets; reads do not change it, whatever expireAfterAccess says.
     *
     * @param key        the key
     * @param value      the value
     * @param timeToLive how long the entry lives, positive
     * @throws IllegalArgumentException if {@code timeToLive} is zero or negative
     */
    void put(K key, V value, Duration timeToLive);

    /**
     * Stores every entry of {@code map}, in its iteration order, each as {@link #put(Object, Object)} does.
     * Not atomic: other threads may see some of the entries before the others.
     *
     * <p>An entry that cannot be stored (its value over {@link CacheBuilder#maxEntryBytes(long)}, its key or
     * value refused by a serializer, a key longer than a key may be, a null key or value) does not stop the
     * others: nothing of it is stored (a value its key had stays), every other entry is stored, and then
     * this call throws that entry's failure as it is, the first in the map's order, with those of later
     * entries suppressed in it. An {@link Error} of the removal listener is thrown once every entry is
     * stored, as {@link RemovalListener} says, or suppressed in such a failure.
     *
     * @param map entries to store
     * @throws NullPointerException   if {@code map} is null (nothing is stored), or holds a null key or value
     *                                (the other entries are stored)
     * @throws ValueTooLargeException if an entry is larger than {@link CacheBuilder#maxEntryBytes(long)} (the
     *                                other entries are stored)
     * @throws SerializationException if a serializer threw or lied about the size of an entry's key or value
     *                                (the other entries are stored)
     * @throws IllegalStateException  if the cache is closed (before the call, or during it: the entries stored
     *                                until then stay), or if called inside {@link #read(Object, Function)}'s
     *                                reader or {@link #compute}'s function (nothing is stored)
     */
    void putAll(Map<? extends K, ? extends V> map);

    /**
     * Stores a value if the key is absent. Finding the key reads its value, an access as a get is: the
     * eviction policy counts the read and a {@link CacheBuilder#expireAfterAccess(Duration) access deadline}
     * moves (no hit is counted in the statistics, as in Caffeine).
     *
     * @param key   the key
     * @param value the value to store if the key is absent
     * @return the present value, or null if {@code value} was stored
     */
    V putIfAbsent(K key, V value);

    /**
     * @param key   the key
     * @param value the new value
     * @return the previous value, or null if the key was absent (and nothing was stored)
     * @throws ValueTooLargeException if the entry is larger than {@link CacheBuilder#maxEntryBytes(long)}
     * @throws SerializationException if a serializer threw or lied about its size, or the value serializer
     *                                could not read the previous value; the key keeps its value
     */
    V replace(K key, V value);

    /**
     * @param key      the key
     * @param oldValue the expected value (compared by serialized bytes)
     * @param newValue the new value
     * @return whether the value was replaced
     */
    boolean replace(K key, V oldValue, V newValue);

    /**
     * Atomically updates the value of a key: no other write to that key happens in between. The function
     * runs under the lock of the key's segment: other writes to that segment wait for it, as do its reads
     * (a copying read's lock-free attempt fails while the lock is held, and it then waits), and a call of this
     * cache from inside it throws {@link IllegalStateException} instead of deadlocking.
     *
     * <p>A function that returns the very instance it was given ({@code (k, v) -> v}, compared by
     * reference: the fresh copy deserialized for this call) keeps the entry, as Caffeine's compute does: the
     * removal listener hears of no {@link RemovalCause#REPLACED} removal. It is still a write, as in
     * Caffeine: the returned instance is serialized and stored (a change made to it in place is kept, and
     * is not told either), and the entry's time after write and after access count from this call. A new
     * object, even an equal one, replaces the value: REPLACED, with the old value. Either way a live entry
     * keeps its place in the eviction order, the write counted as a read of it, as a put over it is.
     *
     * @param key       the key
     * @param remapping gets the key and the present value (null if absent); returns the new value, or null
     *                  to remove the entry. It must not use this cache.
     * @return the new value, or null if removed
     */
    V compute(K key, BiFunction<? super K, ? super V, ? extends V> remapping);

    /**
     * @param key the key
     * @return the removed value, or null if absent
     * @throws SerializationException if the value serializer could not read the value; the entry stays
     *                                ({@link #invalidate(Object)} removes it without reading it)
     */
    V remove(K key);

    /**
     * @param key   the key
     * @param value the expected value (compared by serialized bytes)
     * @return whether the entry was removed
     */
    boolean remove(K key, V value);

    /** @param key removes the entry of this key, if any, without deserializing it */
    void invalidate(K key);

    /** Removes every entry. */
    void invalidateAll();

    /** @param key the key @return whether an unexpired entry of the key is present */
    boolean containsKey(K key);

    /** @return the number of entries (expired ones not yet removed may be counted) */
    long size();

    /** @return bytes the entries use: keys, values and their headers */
    long weightedSize();

    /** @return the capacity in bytes the cache never exceeds, tables included */
    long capacityBytes();

    /** @return a weakly consistent iterator over the keys; {@code remove()} removes the entry */
    Iterator<K> keys();

    /**
     * @return a weakly consistent iterator over copies of the entries; {@code remove()} removes it. Iterating
     *         is no access: it moves no access deadline and tells the eviction policy nothing
     */
    Iterator<Map.Entry<K, V>> entries();

    /**
     * The cache as a {@link java.util.concurrent.ConcurrentMap}, for code that takes a map: every method is
     * a call of this cache, with its costs (each value read is deserialized into a fresh copy) and its
     * rules. Keys are equal when their serialized bytes are, and so are values where the map compares them
     * ({@code remove(key, value)}, {@code replace(key, old, new)}, {@code containsValue}, the values'
     * {@code contains} and {@code remove}, the entry set's {@code contains} and {@code remove}); {@code null} keys and values are
     * refused with {@link NullPointerException}; entries may leave at any time, evicted or expired;
     * {@code size()} is {@link #size()}, capped at {@link Integer#MAX_VALUE}. Iterators of the map and of
     * its views are weakly consistent, as {@link #keys()} and {@link #entries()} are, and support
     * {@code remove()}; an entry's {@code setValue} writes through. {@code compute}, {@code computeIfAbsent},
     * {@code computeIfPresent} and {@code merge} run their function at most once, atomically for the key,
     * as {@link #compute} does (it must not use this cache); one that returns the very present value it was
     * given reports no REPLACED removal, as there. {@code replaceAll} runs its function with no lock of the
     * cache held (it may use the cache), on each entry's value in turn: one that returns the very instance it
     * was given leaves the entry as it is (not written, nothing told; changed in place, it is stored
     * untold, as by {@link #compute}), a new object is stored and told REPLACED as a {@code replace} would
     * be, and a key written meanwhile has the function run again on its new value. An argument of a type the serializers do not take gets {@link ClassCastException}.
     * {@code putAll} refuses a map holding a null key or value before it stores any entry; an entry it
     * cannot store does not stop the others, as {@link #putAll} says.
     *
     * <p>The views' {@code removeAll} and {@code retainAll} compare the argument's elements by their
     * serialized bytes too, whatever the sizes of the view and of the argument (a {@code byte[]} key or value
     * matches an array of the same contents, where Java's own methods compare arrays by identity): the keys'
     * and the entries' {@code removeAll} remove the entry of each element (an entry only while it has the
     * element's value), the values' {@code removeAll} every entry whose value is one of the elements, and
     * {@code retainAll} every entry whose key (value; key and value) is none of them, reading the entries as
     * {@link #entries()} does. An element of a type the serializers do not take, or null, matches nothing
     * (no {@link ClassCastException}). They return whether they removed an entry.
     *
     * <p>Thread-safe. Using the map after {@link #close()} throws {@link IllegalStateException}.
     *
     * @return the map view; the same object on every call
     */
    java.util.concurrent.ConcurrentMap<K, V> asMap();

    /**
     * Reads the statistics; thread-safe. No count is ever lower than in an earlier snapshot, but the counts are
     * not read at one instant together: while other threads use the cache, a snapshot may hold a load and not
     * yet the miss that came before it.
     *
     * @return a snapshot of the statistics; its counts (hits, misses, loads, load time, evictions, expirations)
     *         are zeros if statistics are off ({@link CacheBuilder#recordStats(boolean)}), its sizes (entries,
     *         bytes used, capacity) are the cache's either way
     * @throws IllegalStateException if the cache is closed
     */
    CacheStats stats();

    /** @return whether {@link #close()} was called */
    boolean isClosed();

    /**
     * Does the cache's pending maintenance now: replays the reads recorded for the eviction policy and
     * removes every entry whose deadline had passed when the call began, in every segment, telling the
     * removal listener ({@link RemovalCause#EXPIRED}) and the statistics.
     *
     * <p>Without it, an entry whose deadline has passed is invisible but keeps its memory until a write
     * to its segment, an eviction or the occasional sweep that writes make of another segment remove it:
     * a cache that sees no writes holds its expired entries. Call this, or let the cache call it
     * ({@link CacheBuilder#cleanUpInterval}), where that memory matters.
     *
     * <p>Cost: a segment in which no deadline has come yet is skipped; in the others, a pass over every
     * entry (a million expired entries of 100 bytes took 212 and 246 ms to remove in two runs, docs/cache.md). It holds a
     * segment's write lock for a batch of 1,024 buckets at a time, so reads and writes go on beside it,
     * and tells the removal listener between batches, with no lock of the cache held. Thread-safe;
     * concurrent calls run side by side, each removing what had expired when it began.
     *
     * @throws IllegalStateException if the cache is closed
     */
    void cleanUp();

    /**
     * Frees all memory of the cache. Later calls of any other method throw {@link IllegalStateException};
     * calls running in other threads finish or throw, never touch freed memory; callers waiting for another
     * thread's load throw at once, without waiting for the loader. Idempotent.
     *
     * <p>A close from inside a reader or {@code compute} of another cache waits for this cache's lock
     * holders while it holds that cache's lock; if one of them waits for it, the close may be the call that
     * gives up the deadlock and throws {@link IllegalStateException}: the cache is closed all the same, and
     * its memory is given back once the calls holding its locks end.
     *
     * <p>A cache that is never closed gives its native memory, its budget or memory-manager reservation
     * and its MBean back once the garbage collector finds it unreachable, and logs a warning naming it;
     * when that happens is up to the collector, so close caches that are no longer used.
     */
    @Override
    void close();
}
