package dev.offheap.jcache.internal;

import dev.offheap.cache.Serializer;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.NotSerializableException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Java serialization for keys and values of any {@link java.io.Serializable} type, classes resolved through
 * the cache manager's class loader.
 *
 * <p>The cache calls {@code serializedSize} and then {@code write} for the same value on the same thread;
 * the bytes made for the size are kept in a thread-local for that one {@code write}, so each value is
 * serialized once. Where the store refuses the value on its size, no {@code write} follows: the caller
 * then drops the kept bytes with {@link #forgetPending()}.
 */
final class JavaSerializer<T> implements Serializer<T> {
    private final Class<T> type;
    private final ClassLoader classLoader;
    private final ThreadLocal<Pending> pending = new ThreadLocal<>();

    private record Pending(Object value, byte[] bytes) {
    }

    JavaSerializer(Class<T> type, ClassLoader classLoader) {
        this.type = type;
        this.classLoader = classLoader;
    }

    @Override
    public int serializedSize(T value) {
        byte[] bytes = serialize(value);
        pending.set(new Pending(value, bytes));
        return bytes.length;
    }

    @Override
    public void write(T value, MemorySegment target) {
        Pending last = pending.get();
        pending.remove();
        byte[] bytes = last != null && last.value() == value ? last.bytes() : serialize(value);
        MemorySegment.copy(bytes, 0, target, ValueLayout.JAVA_BYTE, 0, bytes.length);
    }

    /**
     * Takes the bytes {@code serializedSize} made and kept on this thread for {@code value}, so that no
     * {@code write} uses them: for a caller that stores them itself (a write-through serializes a value
     * before its cache writer runs, then stores those bytes).
     *
     * @return the bytes of {@code value}'s last {@code serializedSize} on this thread, or null if none are kept
     *         for that very instance
     */
    byte[] takePending(T value) {
        Pending last = pending.get();
        pending.remove();
        return last != null && last.value() == value ? last.bytes() : null;
    }

    /**
     * Drops what {@code serializedSize} kept on this thread for a {@code write} that will not come (the
     * store refused the key or value, or failed, in between), so that the object and its bytes do not stay
     * reachable from the thread.
     */
    void forgetPending() {
        pending.remove();
    }

    @Override
    public T read(MemorySegment source) {
        byte[] bytes = source.toArray(ValueLayout.JAVA_BYTE);
        try (ObjectInputStream in = new LoaderObjectInputStream(new ByteArrayInputStream(bytes), classLoader)) {
            return type.cast(in.readObject());
        } catch (IOException | ClassNotFoundException e) {
            throw new IllegalStateException("cannot deserialize a cached " + type.getName() + " of "
                    + bytes.length + " bytes: " + e, e);
        }
    }

    static byte[] serialize(Object value) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(value);
        } catch (NotSerializableException e) {
            throw new IllegalArgumentException("a " + value.getClass().getName()
                    + " cannot be stored by value: it is not java.io.Serializable (" + e.getMessage() + ")", e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serialize a " + value.getClass().getName(), e);
        }
        return bytes.toByteArray();
    }

    @Override
    public String toString() {
        return "Java serialization of " + type.getName();
    }

    private static final class LoaderObjectInputStream extends ObjectInputStream {
        private final ClassLoader classLoader;

        LoaderObjectInputStream(InputStream in, ClassLoader classLoader) throws IOException {
            super(in);
            this.classLoader = classLoader;
        }

        @Override
        protected Class<?> resolveClass(ObjectStreamClass description) throws IOException, ClassNotFoundException {
            try {
                return Class.forName(description.getName(), false, classLoader);
            } catch (ClassNotFoundException e) {
                return super.resolveClass(description);
            }
        }
    }
}
