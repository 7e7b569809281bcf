package dev.offheap.cli.serve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.offheap.cli.compare.LatencyOfferStore;
import dev.offheap.cli.compare.OffHeapOfferCache;
import dev.offheap.cli.compare.OfferService;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code /stats} described the {@code off-heap} variant as {@code compare} uses it, "values loaded into native
 * memory, hits and misses read in place", but {@code serve} hands each response to the HTTP server as bytes on
 * the heap, so every request copies its value out of the cache (as its --help says). The description now says
 * what serve does.
 */
class TheStatsSayServeCopiesOffHeapValuesOutTest {
    @Test
    @Timeout(30)
    void theOffHeapVariantIsDescribedAsCopyingEachValueOut() throws Exception {
        OfferService service = new OfferService(new OffHeapOfferCache(10, 100, true),
                new LatencyOfferStore(20, 100, Duration.ZERO));
        try (OfferServer server = OfferServer.start(service, "off-heap", new InetSocketAddress("127.0.0.1", 0), 1)) {
            assertThat((String) server.stats().get("cache")).doesNotContain("in place")
                    .contains("native memory").contains("every request copies its value out");
        }
    }
}
