package dev.offheap.cli.serve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.offheap.cli.bench.Json;
import dev.offheap.cli.compare.CaffeineOfferCache;
import dev.offheap.cli.compare.JsonWriter;
import dev.offheap.cli.compare.LatencyOfferStore;
import dev.offheap.cli.compare.OfferService;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Before the first request, {@code /metrics} gave 0 for each latency quantile and {@code /stats} 0.0 for
 * p50, p99, p99.9 and max: a latency of zero that no request had. A Prometheus summary's quantile with no
 * observations is NaN, and {@code /stats} gives null, as it does for the hit ratio before the first request.
 */
class NoRequestsYetHaveNoLatencyTest {
    @Test
    @Timeout(30)
    void theQuantilesAreNaNInMetricsAndNullInStats() throws Exception {
        OfferService service = new OfferService(new CaffeineOfferCache(10), new LatencyOfferStore(10, 10, Duration.ZERO));
        try (OfferServer server = OfferServer.start(service, "v", new InetSocketAddress("127.0.0.1", 0), 1)) {
            Map<?, ?> stats = (Map<?, ?>) Json.parse(JsonWriter.write(server.stats()));
            Map<?, ?> micros = (Map<?, ?>) stats.get("latencyMicros");
            assertThat(micros.get("count")).isEqualTo(0.0);
            for (String q : new String[] {"p50", "p99", "p999", "max"}) {
                assertThat(micros.containsKey(q)).as(q + " in " + micros).isTrue();
                assertThat(micros.get(q)).as(q + " in " + micros).isNull();
            }
            assertThat(stats.get("hitRatio")).isNull();

            String metrics = server.metrics();
            for (String q : new String[] {"0.5", "0.99", "0.999"}) {
                Matcher m = Pattern.compile("(?m)^offheap_request_seconds\\{variant=\"v\",quantile=\"" + Pattern.quote(q)
                        + "\"} (\\S+)$").matcher(metrics);
                assertThat(m.find()).as(q + " in\n" + metrics).isTrue();
                assertThat(m.group(1)).as("quantile " + q).isEqualTo("NaN");
            }
            assertThat(metrics).contains("offheap_request_seconds_count{variant=\"v\"} 0\n");

            service.offer(1);
            // the handler records each request's time; one served through the service directly is not, so
            // a recorded value is put in as the handler would
            java.lang.reflect.Field field = OfferServer.class.getDeclaredField("latency");
            field.setAccessible(true);
            ((org.HdrHistogram.ConcurrentHistogram) field.get(server)).recordValue(2_000);
            Map<?, ?> after = (Map<?, ?>) ((Map<?, ?>) Json.parse(JsonWriter.write(server.stats()))).get("latencyMicros");
            assertThat((Double) after.get("p50")).isEqualTo(2.0);
            assertThat(server.metrics()).doesNotContain("NaN");
        }
    }
}
