package dev.offheap.memory.internal;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * The file mappings the library has made and not yet unmapped (a mapped memory manager's), so that
 * {@link SegmentKernels#fill} recognises their memory in segments that no longer say they are mapped:
 * {@code reinterpret} of a mapped segment (how a manager gives each page a scope of its own) returns a
 * plain native segment, whose {@link MemorySegment#isMapped()} is false. Such a region must not go to
 * {@code memset} either: a store past the end of a truncated file faults, which the JDK's accessors turn
 * into an {@link InternalError} but which kills the JVM with SIGBUS inside a downcall. Not an API.
 */
public final class MappedRegions {
    private static final Object LOCK = new Object();
    /** Start and end addresses of each registered mapping, in pairs; replaced whole, so readers take no lock. */
    private static volatile long[] ranges = new long[0];

    private MappedRegions() {
    }

    /**
     * Records a mapping; call before any segment over it is handed out.
     *
     * @param mapping the whole mapped segment
     */
    public static void register(MemorySegment mapping) {
        synchronized (LOCK) {
            long[] now = ranges;
            long[] next = Arrays.copyOf(now, now.length + 2);
            next[now.length] = mapping.address();
            next[now.length + 1] = mapping.address() + mapping.byteSize();
            ranges = next;
        }
    }

    /**
     * Forgets a mapping; call once it is unmapped (its arena closed), never before: until then a fill of a
     * page over it must still avoid {@code memset}.
     *
     * @param mapping the segment given to {@link #register}
     */
    public static void unregister(MemorySegment mapping) {
        long start = mapping.address();
        long end = start + mapping.byteSize();
        synchronized (LOCK) {
            long[] now = ranges;
            for (int i = 0; i < now.length; i += 2) {
                if (now[i] == start && now[i + 1] == end) {
                    long[] next = new long[now.length - 2];
                    System.arraycopy(now, 0, next, 0, i);
                    System.arraycopy(now, i + 2, next, i, now.length - i - 2);
                    ranges = next;
                    return;
                }
            }
        }
    }

    /**
     * @param region a native segment
     * @return whether any byte of {@code region} lies in a registered mapping
     */
    static boolean overlaps(MemorySegment region) {
        long start = region.address();
        long end = start + region.byteSize();
        long[] now = ranges;
        for (int i = 0; i < now.length; i += 2) {
            if (start < now[i + 1] && now[i] < end) {
                return true;
            }
        }
        return false;
    }
}
