package dev.offheap.cli.serve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.offheap.cli.compare.CaffeineOfferCache;
import dev.offheap.cli.compare.LatencyOfferStore;
import dev.offheap.cli.compare.OfferService;
import java.lang.reflect.Field;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.HdrHistogram.ConcurrentHistogram;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;

/**
 * {@code /stats} and {@code /metrics} give request latencies to three significant digits below a
 * millisecond too, where a cache hit lands. The server's histogram began at 1,000 ns, which HdrHistogram
 * rounds down to 512: every latency below about 1 ms fell in a 512 ns step and was reported as the step's
 * end, so a 3.6 us median read as 4.095 us and a 1.0 us one as 1.023 us (the fix {@code compare} got for
 * the same histogram, which {@code serve} kept).
 */
class ServeSubMillisecondLatencyTest {
    @Test
    void microsecondLatenciesAreReportedToThreeSignificantDigits() throws Exception {
        OfferService service = new OfferService(new CaffeineOfferCache(10), new LatencyOfferStore(10, 10, Duration.ZERO));
        try (OfferServer server = OfferServer.start(service, "unused", new InetSocketAddress("127.0.0.1", 0), 1)) {
            // the histogram the request handler records into; a real request's time cannot be chosen, so the
            // test records known times as the handler would
            Field field = OfferServer.class.getDeclaredField("latency");
            field.setAccessible(true);
            ConcurrentHistogram latency = (ConcurrentHistogram) field.get(server);
            for (int i = 0; i < 100; i++) {
                latency.recordValue(3_600);
            }

            Map<?, ?> micros = (Map<?, ?>) server.stats().get("latencyMicros");
            assertThat((Double) micros.get("p50")).as("/stats p50 of 3.6 us").isCloseTo(3.6, Offset.offset(0.0036));
            assertThat((Double) micros.get("max")).as("/stats max of 3.6 us").isCloseTo(3.6, Offset.offset(0.0036));

            Matcher m = Pattern.compile("(?m)^offheap_request_seconds\\{variant=\"unused\",quantile=\"0.5\"} (\\S+)$")
                    .matcher(server.metrics());
            assertThat(m.find()).isTrue();
            assertThat(Double.parseDouble(m.group(1))).as("/metrics median of 3.6 us")
                    .isCloseTo(3.6e-6, Offset.offset(3.6e-9));
        }
    }
}
