package dev.offheap.jcstress;

import dev.offheap.cache.OffHeapCache;
import dev.offheap.cache.Serializer;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The cache's optimistic read racing a write of the same key: one actor reads the key twice, the other
 * puts a value of another size, so that the entry moves to another block (even keys grow from 24 to 200
 * bytes, odd ones shrink from 200 to 24). A lookup copies the value's bytes out without a lock and then
 * validates the segment lock's stamp, retrying under the read lock if a writer came between: it must
 * return the old value or the new one, whole, never a torn mix, another key's bytes or null (the key is
 * present throughout), and a read after a read that saw the new value must not see the old one again.
 *
 * <p>Every sample has a key of its own in one cache shared by the samples (a cache per sample would cost
 * far more than the race), large enough that nothing is evicted; the arbiter removes the key. Each value
 * starts with its key, so a value of another key is told apart.
 *
 * <p>Result: the first read, the second read, then the arbiter's read, each 1 for the old value, 2 for the
 * new one, 0 for null, 3 for anything else.
 */
@JCStressTest
@Description("OffHeapCache: getIfPresent racing a put that moves the entry; a read sees the old or the new value, "
        + "whole, and never goes back to the old one.")
@Outcome(id = "1, 1, 2", expect = Expect.ACCEPTABLE, desc = "both reads before the put")
@Outcome(id = "2, 2, 2", expect = Expect.ACCEPTABLE, desc = "both reads after the put")
@Outcome(id = "1, 2, 2", expect = Expect.ACCEPTABLE_INTERESTING, desc = "the put came between the reads")
@Outcome(expect = Expect.FORBIDDEN,
        desc = "a read saw null, a torn value or another key's, or the old value after the new one; or the put was lost")
@State
public class CacheGetVersusMovingPutTest {
    private static final int SMALL = 24;
    private static final int LARGE = 200;
    /** Shared by the samples: at most 10,240 live keys (jcstress's largest batch) of up to 200 bytes, never evicted. */
    private static final OffHeapCache<Long, byte[]> CACHE = OffHeapCache.builder(Serializer.longs(),
            Serializer.byteArrays()).capacity(16L << 20).concurrencyLevel(8).recordStats(false)
            .name("jcstress-get-versus-moving-put").build();
    private static final AtomicLong KEYS = new AtomicLong();

    private final long key = KEYS.incrementAndGet();
    private final byte[] oldValue = value(key, key % 2 == 0 ? SMALL : LARGE, 1);
    private final byte[] newValue = value(key, key % 2 == 0 ? LARGE : SMALL, 2);

    public CacheGetVersusMovingPutTest() {
        CACHE.put(key, oldValue);
    }

    /** @return {@code length} bytes: the key, then a pattern of the key and {@code version} */
    private static byte[] value(long key, int length, int version) {
        byte[] value = new byte[length];
        ByteBuffer.wrap(value).putLong(key);
        for (int i = Long.BYTES; i < length; i++) {
            value[i] = (byte) (key * 31 + i * version);
        }
        return value;
    }

    private int code(byte[] read) {
        if (read == null) {
            return 0;
        }
        return Arrays.equals(read, oldValue) ? 1 : Arrays.equals(read, newValue) ? 2 : 3;
    }

    @Actor
    public void read(III_Result r) {
        r.r1 = code(CACHE.getIfPresent(key));
        r.r2 = code(CACHE.getIfPresent(key));
    }

    @Actor
    public void put() {
        CACHE.put(key, newValue);
    }

    @Arbiter
    public void inspectThenRemove(III_Result r) {
        r.r3 = code(CACHE.getIfPresent(key));
        CACHE.invalidate(key);
    }
}
