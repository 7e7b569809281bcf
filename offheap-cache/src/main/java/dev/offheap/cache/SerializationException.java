package dev.offheap.cache;

/** A serializer threw, or wrote or declared a size that does not match; that one entry was rejected. */
public final class SerializationException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what the serializer did wrong
     * @param cause   its exception, or null
     */
    public SerializationException(String message, Throwable cause) {
        super(message, cause);
    }
}
