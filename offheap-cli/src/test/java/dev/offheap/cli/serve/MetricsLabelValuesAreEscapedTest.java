package dev.offheap.cli.serve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.offheap.cli.compare.LatencyOfferStore;
import dev.offheap.cli.compare.OfferService;
import dev.offheap.cli.compare.Variant;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The Prometheus text format (0.0.4) has a label value's backslash, double quote and line feed escaped as
 * {@code \\}, {@code \"} and {@code \n}. {@code /metrics} wrote the variant's label and the collectors' names
 * as they were, so a label with a quote (OfferServer takes any) ended its value early and made the whole
 * scrape unparseable. Now they are escaped.
 */
class MetricsLabelValuesAreEscapedTest {
    /** A sample line: name, labels of escaped values, a value; as Prometheus's parser reads it. */
    private static final Pattern SAMPLE = Pattern.compile(
            "[a-zA-Z_:][a-zA-Z0-9_:]*\\{([a-zA-Z_][a-zA-Z0-9_]*=\"(?:[^\"\\\\\\n]|\\\\[\\\\\"n])*\",?)*} "
                    + "(?:[0-9.eE+-]+|NaN|[+-]Inf)");

    @Test
    void aLabelWithAQuoteABackslashAndALineFeedIsEscaped() throws Exception {
        OfferService service = new OfferService(Variant.ON_HEAP.create(5, 10), new LatencyOfferStore(10, 10, Duration.ZERO));
        try (OfferServer server = OfferServer.start(service, "a\"b\\c\nd", new InetSocketAddress("127.0.0.1", 0), 1)) {
            String metrics = server.metrics();
            assertThat(metrics).contains("offheap_requests_total{variant=\"a\\\"b\\\\c\\nd\"} 0\n");
            assertThat(metrics.lines().filter(l -> !l.startsWith("# ")))
                    .allSatisfy(l -> assertThat(l).matches(SAMPLE));
        }
    }

    @Test
    void everyLineOfTheStandardVariantsIsACommentOrASample() throws Exception {
        OfferService service = new OfferService(Variant.ON_HEAP.create(5, 10), new LatencyOfferStore(10, 10, Duration.ZERO));
        try (OfferServer server = OfferServer.start(service, Variant.ON_HEAP.label(), new InetSocketAddress("127.0.0.1", 0),
                1)) {
            String metrics = server.metrics();
            assertThat(metrics).endsWith("\n");
            assertThat(metrics.lines()).allSatisfy(l -> assertThat(l)
                    .matches(Pattern.compile("# (HELP|TYPE) [a-z_]+ .+|" + SAMPLE.pattern())));
        }
    }
}
