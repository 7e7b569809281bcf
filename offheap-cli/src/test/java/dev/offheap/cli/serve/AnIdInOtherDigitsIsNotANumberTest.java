package dev.offheap.cli.serve;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code GET /offers/{id}} read the id with {@link Long#parseLong}, which takes any Unicode digit: {@code /offers/３}
 * (a full-width 3) and {@code /offers/٣} (an Arabic-Indic 3) served offer 3, and a very long id in such digits got
 * 400 where one as long in ASCII digits got 404. An id is ASCII digits, with an optional sign; anything else is
 * 400, whatever its length.
 */
class AnIdInOtherDigitsIsNotANumberTest {
    @ParameterizedTest
    @CsvSource({"\uFF13,1", "\u0663,1", "1\uFF12,1", "\uFF13,30", "\u0663,1000"})
    @Timeout(30)
    void anIdWithADigitOutsideAsciiIs400(String digits, int times) throws Exception {
        String id = digits.repeat(times);
        ServeCommand.Args args = ServeCommand.parse(List.of("--variant", "on-heap", "--port", "0", "--loader", "memory",
                "--latency", "0us", "--value-size", "10", "--max-entries", "5"));
        try (OfferServer server = ServeCommand.start(args, new PrintStream(new ByteArrayOutputStream(), true,
                StandardCharsets.UTF_8))) {
            HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
                    "http://127.0.0.1:" + server.port() + "/offers/" + URLEncoder.encode(id, StandardCharsets.UTF_8)))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
            assertThat(r.body()).startsWith("offer id must be a whole number");
            assertThat(server.stats().get("requests")).isEqualTo(0L);
        }
    }
}
