package dev.offheap.bench.baseline;

/**
 * JVM flags that only the forks of third-party baselines get, never the library's own forks: the
 * library is FFM-only, but Flink, OHC and Netty reach memory through the JDK's unsupported {@code Unsafe} class, and measuring
 * them as their users run them needs that allowed.
 */
public final class ThirdPartyForks {
    /**
     * Allows the {@code Unsafe} class's memory-access methods, which warn on JDK 25 (JEP 498) unless
     * allowed. For Flink 1.20 it only silences that warning (its {@code MemoryUtils} builds its
     * DirectByteBuffer with {@code Unsafe.allocateInstance} and field offsets, no {@code --add-opens}).
     * OHC 0.7.4 needs it for all its memory (it needs no {@code --add-opens}: it finds
     * {@code java.nio.Buffer}'s fields with {@code getDeclaredField} and {@code Unsafe.objectFieldOffset},
     * which JDK 25 still permits). Netty 4.2 uses Unsafe only when this is given (its direct buffers
     * then read and write through raw addresses instead of a ByteBuffer); without it, it falls back
     * to ByteBuffers.
     */
    public static final String UNSAFE_MEMORY_ACCESS_ALLOWED = "--sun-misc-unsafe-memory-access=allow";

    private ThirdPartyForks() {
    }
}
