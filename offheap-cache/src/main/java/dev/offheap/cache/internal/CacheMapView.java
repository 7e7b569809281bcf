package dev.offheap.cache.internal;

import dev.offheap.cache.OffHeapCache;
import dev.offheap.cache.SerializationException;

import java.util.AbstractCollection;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Collection;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.concurrent.ConcurrentMap;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * {@link OffHeapCache#asMap()}: the cache as a {@link ConcurrentMap}, every method a call of the cache.
 *
 * <p>What differs from an on-heap map: keys are equal when their serialized bytes are, and so are values
 * wherever the map compares them ({@code remove(key, value)}, {@code replace(key, old, new)},
 * {@code containsValue}, the values' {@code contains} and {@code remove}, the entry set's {@code contains}
 * and {@code remove}, and the views' {@code removeAll} and {@code retainAll}); every value read is a fresh copy;
 * entries may leave at any time through eviction or expiry; {@link #size()} is the cache's entry count,
 * capped at {@link Integer#MAX_VALUE}, and {@link #isEmpty()} agrees with it (both may count expired
 * entries not yet removed, as {@link OffHeapCache#size()} says). Iterators and the views' iterators are weakly consistent, as the
 * cache's are. An argument that the cache's serializer cannot take (a key or value of another type)
 * gets the {@link ClassCastException} the {@link Map} contract names, its cause the serializer's failure.
 */
final class CacheMapView<K, V> extends AbstractMap<K, V> implements ConcurrentMap<K, V> {
    private final OffHeapCacheImpl<K, V> cache;
    private Set<K> keySet;
    private Collection<V> values;
    private Set<Map.Entry<K, V>> entrySet;

    CacheMapView(OffHeapCacheImpl<K, V> cache) {
        this.cache = cache;
    }

    /**
     * Runs a call whose argument came in as {@code Object}: a serializer that failed on a cast becomes the
     * {@link ClassCastException} of the {@link Map} contract.
     */
    private static <R> R typed(Supplier<R> call) {
        try {
            return call.get();
        } catch (SerializationException e) {
            if (e.getCause() instanceof ClassCastException cast) {
                ClassCastException wrongType = new ClassCastException(
                        "an argument of a type this cache's serializers do not take: " + cast.getMessage());
                wrongType.initCause(e);
                throw wrongType;
            }
            throw e;
        }
    }

    @SuppressWarnings("unchecked")
    private static <T> T cast(Object o) {
        return (T) o;
    }

    @Override
    public V get(Object key) {
        Objects.requireNonNull(key, "key");
        return typed(() -> cache.getIfPresent(cast(key)));
    }

    @Override
    public boolean containsKey(Object key) {
        Objects.requireNonNull(key, "key");
        return typed(() -> cache.containsKey(cast(key)));
    }

    @Override
    public boolean containsValue(Object value) {
        Objects.requireNonNull(value, "value");
        return typed(() -> cache.findValue(cast(value), false));
    }

    @Override
    public V put(K key, V value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        return typed(() -> cache.getAndPut(key, value));
    }

    @Override
    public V remove(Object key) {
        Objects.requireNonNull(key, "key");
        return typed(() -> cache.remove(cast(key)));
    }

    @Override
    public void putAll(Map<? extends K, ? extends V> map) {
        for (Map.Entry<? extends K, ? extends V> e : map.entrySet()) {
            Objects.requireNonNull(e.getKey(), "key");
            Objects.requireNonNull(e.getValue(), "value");
        }
        // a key or value of another type (a raw or unchecked map) gets the ClassCastException of Map.putAll,
        // as put's does
        typed(() -> {
            cache.putAll(map);
            return null;
        });
    }

    @Override
    public void clear() {
        cache.invalidateAll();
    }

    @Override
    public int size() {
        return (int) Math.min(Integer.MAX_VALUE, cache.size());
    }

    @Override
    public boolean isEmpty() {
        return cache.size() == 0;
    }

    @Override
    public V putIfAbsent(K key, V value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        return typed(() -> cache.putIfAbsent(key, value));
    }

    @Override
    public boolean remove(Object key, Object value) {
        Objects.requireNonNull(key, "key");
        if (value == null) {
            return false;
        }
        return typed(() -> cache.remove(cast(key), cast(value)));
    }

    @Override
    public boolean replace(K key, V oldValue, V newValue) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(oldValue, "oldValue");
        Objects.requireNonNull(newValue, "newValue");
        return typed(() -> cache.replace(key, oldValue, newValue));
    }

    @Override
    public V replace(K key, V value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        return typed(() -> cache.replace(key, value));
    }

    @Override
    public void replaceAll(BiFunction<? super K, ? super V, ? extends V> function) {
        Objects.requireNonNull(function, "function");
        typed(() -> {
            cache.replaceAll(function);
            return null;
        });
    }

    // The compute family runs the function once, atomically for the key, under the key's segment lock
    // (OffHeapCache.compute); ConcurrentMap's defaults would retry it in a loop of separate calls.

    @Override
    public V compute(K key, BiFunction<? super K, ? super V, ? extends V> remapping) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(remapping, "remappingFunction");
        return typed(() -> cache.compute(key, remapping));
    }

    @Override
    public V computeIfAbsent(K key, Function<? super K, ? extends V> mapping) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(mapping, "mappingFunction");
        V present = get(key);
        if (present != null) {
            return present; // counts the hit, and takes no write lock for a key that is there
        }
        // one that a put stored since is left as it is, under the lock
        return typed(() -> cache.computeIfAbsent(key, mapping));
    }

    @Override
    public V computeIfPresent(K key, BiFunction<? super K, ? super V, ? extends V> remapping) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(remapping, "remappingFunction");
        return typed(() -> cache.compute(key, (k, old) -> old == null ? null : remapping.apply(k, old)));
    }

    @Override
    public V merge(K key, V value, BiFunction<? super V, ? super V, ? extends V> remapping) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        Objects.requireNonNull(remapping, "remappingFunction");
        return typed(() -> cache.compute(key, (k, old) -> old == null ? value : remapping.apply(old, value)));
    }

    @Override
    public Set<K> keySet() {
        Set<K> view = keySet;
        if (view == null) {
            keySet = view = new KeySet();
        }
        return view;
    }

    @Override
    public Collection<V> values() {
        Collection<V> view = values;
        if (view == null) {
            values = view = new Values();
        }
        return view;
    }

    @Override
    public Set<Map.Entry<K, V>> entrySet() {
        Set<Map.Entry<K, V>> view = entrySet;
        if (view == null) {
            entrySet = view = new EntrySet();
        }
        return view;
    }

    /**
     * The views' spliterator: not Collection's default, which reports SIZED with {@code size()}, a count that
     * includes expired entries not yet removed and misses entries put while a stream runs, where the iterator
     * skips the first and may see the second. A sized stream trusts that count: its {@code toArray()} and
     * {@code toList()} threw ("End size 1 is less than fixed size 3", "Accept exceeded fixed size"). As
     * {@link java.util.concurrent.ConcurrentHashMap}'s views, of unknown size.
     */
    private static <T> Spliterator<T> spliteratorOf(Iterator<T> iterator, int characteristics) {
        return Spliterators.spliteratorUnknownSize(iterator,
                characteristics | Spliterator.CONCURRENT | Spliterator.NONNULL);
    }

    private final class KeySet extends AbstractSet<K> {
        @Override
        public Iterator<K> iterator() {
            return cache.keys();
        }

        @Override
        public Spliterator<K> spliterator() {
            return spliteratorOf(iterator(), Spliterator.DISTINCT);
        }

        @Override
        public int size() {
            return CacheMapView.this.size();
        }

        @Override
        public boolean isEmpty() {
            return CacheMapView.this.isEmpty();
        }

        @Override
        public boolean contains(Object key) {
            return containsKey(key);
        }

        @Override
        public boolean remove(Object key) {
            Objects.requireNonNull(key, "key");
            return typed(() -> cache.remove(cast(key)) != null);
        }

        @Override
        public boolean removeIf(Predicate<? super K> filter) {
            return cache.removeKeysIf(filter);
        }

        @Override
        public boolean removeAll(Collection<?> keys) {
            return cache.removeKeys(keys);
        }

        @Override
        public boolean retainAll(Collection<?> keys) {
            return cache.retainKeys(keys);
        }

        @Override
        public void clear() {
            cache.invalidateAll();
        }
    }

    private final class Values extends AbstractCollection<V> {
        @Override
        public Iterator<V> iterator() {
            Iterator<Map.Entry<K, V>> entries = new EntryIterator();
            return new Iterator<>() {
                @Override
                public boolean hasNext() {
                    return entries.hasNext();
                }

                @Override
                public V next() {
                    return entries.next().getValue();
                }

                @Override
                public void remove() {
                    entries.remove();
                }
            };
        }

        @Override
        public Spliterator<V> spliterator() {
            return spliteratorOf(iterator(), 0);
        }

        @Override
        public int size() {
            return CacheMapView.this.size();
        }

        @Override
        public boolean isEmpty() {
            return CacheMapView.this.isEmpty();
        }

        @Override
        public boolean contains(Object value) {
            return containsValue(value);
        }

        /** Removes one entry of the value, compared by its bytes, while it still has it. */
        @Override
        public boolean remove(Object value) {
            Objects.requireNonNull(value, "value");
            return typed(() -> cache.findValue(cast(value), true));
        }

        @Override
        public boolean removeIf(Predicate<? super V> filter) {
            Objects.requireNonNull(filter, "filter");
            return removeEntriesIf(entry -> filter.test(entry.getValue()));
        }

        /** Removes every entry whose value is one of the elements, not one entry per element. */
        @Override
        public boolean removeAll(Collection<?> values) {
            return cache.removeValues(values, false);
        }

        @Override
        public boolean retainAll(Collection<?> values) {
            return cache.removeValues(values, true);
        }

        @Override
        public void clear() {
            cache.invalidateAll();
        }
    }

    private final class EntrySet extends AbstractSet<Map.Entry<K, V>> {
        @Override
        public Iterator<Map.Entry<K, V>> iterator() {
            return new EntryIterator();
        }

        @Override
        public Spliterator<Map.Entry<K, V>> spliterator() {
            return spliteratorOf(iterator(), Spliterator.DISTINCT);
        }

        @Override
        public int size() {
            return CacheMapView.this.size();
        }

        @Override
        public boolean isEmpty() {
            return CacheMapView.this.isEmpty();
        }

        @Override
        public boolean contains(Object o) {
            if (!(o instanceof Map.Entry<?, ?> e) || e.getKey() == null || e.getValue() == null) {
                return false;
            }
            return typed(() -> cache.containsEntry(cast(e.getKey()), cast(e.getValue())));
        }

        @Override
        public boolean remove(Object o) {
            if (!(o instanceof Map.Entry<?, ?> e) || e.getKey() == null || e.getValue() == null) {
                return false;
            }
            return CacheMapView.this.remove(e.getKey(), e.getValue());
        }

        @Override
        public boolean removeIf(Predicate<? super Map.Entry<K, V>> filter) {
            Objects.requireNonNull(filter, "filter");
            return removeEntriesIf(filter);
        }

        @Override
        public boolean removeAll(Collection<?> entries) {
            return cache.removeEntries(entries);
        }

        @Override
        public boolean retainAll(Collection<?> entries) {
            return cache.retainEntries(entries);
        }

        @Override
        public void clear() {
            cache.invalidateAll();
        }
    }

    /**
     * {@code removeIf} of the values and the entries: removes an entry only while it still has the value the
     * filter was shown ({@code remove(key, value)}), as {@link java.util.concurrent.ConcurrentHashMap}'s views
     * do. The iterator's {@code remove()} that {@code Collection}'s default uses would also remove a value put
     * since, which the filter never saw.
     */
    private boolean removeEntriesIf(Predicate<? super Map.Entry<K, V>> filter) {
        Iterator<Map.Entry<K, V>> entries = new EntryIterator();
        return cache.bulk(errors -> {
            boolean removed = false;
            while (entries.hasNext()) {
                Map.Entry<K, V> entry = entries.next();
                if (filter.test(entry) && cache.remove(entry.getKey(), entry.getValue(), errors)) {
                    removed = true;
                }
            }
            return removed;
        });
    }

    /** The cache's entry iterator, with entries whose {@code setValue} writes through. */
    private final class EntryIterator implements Iterator<Map.Entry<K, V>> {
        private final Iterator<Map.Entry<K, V>> entries = cache.entries();

        @Override
        public boolean hasNext() {
            return entries.hasNext();
        }

        @Override
        public Map.Entry<K, V> next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            return new WriteThroughEntry(entries.next());
        }

        @Override
        public void remove() {
            entries.remove();
        }
    }

    /** An entry of the view: a copy of the key and value whose {@code setValue} puts into the cache. */
    private final class WriteThroughEntry extends SimpleEntry<K, V> {
        private static final long serialVersionUID = 1L;

        WriteThroughEntry(Map.Entry<K, V> entry) {
            super(entry.getKey(), entry.getValue());
        }

        @Override
        public V setValue(V value) {
            Objects.requireNonNull(value, "value");
            // the cache first: a value it refuses (too large, a serializer that throws) leaves this entry as
            // it was, as it leaves the mapping
            put(getKey(), value);
            return super.setValue(value);
        }
    }
}
