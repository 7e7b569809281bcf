package dev.offheap.cli.serve;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code GET /offers/{id}} with an id of 100,000 characters (a client's bug, a probe): the 404 or 400 said
 * "no offer 1111...: ids are 0 to 19" with every one of them, a response as long as the request, up to the
 * JDK server's limit on a request's headers. Now a long id is shown by its start and its length.
 */
class ALongIdIsNotEchoedWholeTest {
    @ParameterizedTest
    @CsvSource({"9,404,no offer 9999999999", "a,400,offer id must be a whole number, got 'aaaaaaaaaa"})
    @Timeout(30)
    void aLongIdIsShownByItsStartAndLength(String character, int status, String start) throws Exception {
        ServeCommand.Args args = ServeCommand.parse(List.of("--variant", "on-heap", "--port", "0", "--loader", "memory",
                "--latency", "0us", "--value-size", "10", "--max-entries", "5"));
        try (OfferServer server = ServeCommand.start(args, new PrintStream(new ByteArrayOutputStream(), true,
                StandardCharsets.UTF_8))) {
            HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
                    "http://127.0.0.1:" + server.port() + "/offers/" + character.repeat(100_000))).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(status);
            assertThat(r.body()).startsWith(start).contains("(100000 characters)").hasSizeLessThan(300);
        }
    }
}
