package dev.offheap.cache;

/** A loader threw or returned null; the cause is the loader's exception, if any. */
public final class CacheLoadException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what failed, naming the key
     * @param cause   the loader's exception, or null
     */
    public CacheLoadException(String message, Throwable cause) {
        super(message, cause);
    }
}
