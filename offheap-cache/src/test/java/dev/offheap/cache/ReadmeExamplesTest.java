package dev.offheap.cache;

import static org.assertj.core.api.Assertions.assertThat;

import dev.offheap.memory.ByteSize;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

/**
 * The Java example of README.md's "OffHeapCache" section, run as written (with the repository and the
 * {@code send} it leaves to the reader filled in) and checked against what its comments say: one load per
 * key, reads in place, the MBean's name, the statistics. The memory examples of the README are run in
 * offheap-memory's ReadmeExamplesTest, the JCache one in offheap-jcache's.
 */
class ReadmeExamplesTest {

    interface Repository {
        String describe(long id);
    }

    @Test
    void theOffersCacheLoadsOncePerKeyReadsInPlaceAndCountsItsStatistics() throws Exception {
        AtomicInteger loads = new AtomicInteger();
        Repository repository = id -> {
            loads.incrementAndGet();
            return "offer " + id;
        };
        long[] bytesSent = new long[1];
        try (OffHeapCache<Long, String> offers = OffHeapCache.builder(Serializer.longs(), Serializer.strings())
                .capacity(ByteSize.parse("512m"))              // everything included; never exceeded
                .expireAfterWrite(Duration.ofMinutes(10))
                .name("offers")                                // MBean dev.offheap:type=Cache,name="offers"
                .build()) {
            assertThat(ManagementFactory.getPlatformMBeanServer()
                    .isRegistered(new ObjectName("dev.offheap:type=Cache,name=\"offers\""))).isTrue();
            offers.put(42L, "a description");
            String description = offers.get(7L, id -> repository.describe(id)); // one load per key at a time
            int length = offers.read(42L, segment -> (int) segment.byteSize()); // in place: no copy, no object
            long sent = offers.readOrLoad(9L, id -> repository.describe(id), segment -> {
                bytesSent[0] += segment.byteSize();               // send(segment)
                return segment.byteSize();
            }); // hit or miss, in place
            CacheStats stats = offers.stats();

            assertThat(description).isEqualTo("offer 7");
            assertThat(offers.get(7L, id -> repository.describe(id))).as("loaded once, then a hit").isEqualTo("offer 7");
            assertThat(loads.get()).isEqualTo(2);
            assertThat(length).isEqualTo("a description".getBytes(StandardCharsets.UTF_8).length);
            assertThat(sent).isEqualTo("offer 9".length()).isEqualTo(bytesSent[0]);
            String stored = offers.read(9L, segment -> new String(segment.toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8));
            assertThat(stored).as("the loaded value is stored").isEqualTo("offer 9");
            assertThat(stats.hitCount()).isEqualTo(1);
            assertThat(stats.missCount()).isEqualTo(2);
            assertThat(stats.loadSuccessCount()).isEqualTo(2);
            assertThat(stats.entryCount()).isEqualTo(3);
            assertThat(stats.capacityBytes()).isEqualTo(512L << 20);
            assertThat(stats.usedBytes()).isPositive().isLessThanOrEqualTo(512L << 20);
        }
        assertThat(ManagementFactory.getPlatformMBeanServer()
                .isRegistered(new ObjectName("dev.offheap:type=Cache,name=\"offers\""))).isFalse();
    }
}
