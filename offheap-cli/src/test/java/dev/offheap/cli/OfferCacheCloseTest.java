package dev.offheap.cli;

import static org.assertj.core.api.Assertions.assertThatCode;

import dev.offheap.cli.compare.OfferCache;
import dev.offheap.cli.compare.Variant;
import dev.offheap.cli.serve.OfferServer;
import dev.offheap.cli.serve.ServeCommand;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Every variant's cache and server may be closed twice, as OfferCache.close promises. */
class OfferCacheCloseTest {
    /** {@link OfferCache#close()} is documented idempotent; the ohc variant's second close threw an NPE. */
    @ParameterizedTest
    @EnumSource(Variant.class)
    void closingACacheTwiceIsHarmless(Variant variant) {
        OfferCache cache = variant.create(5, 100);
        cache.close();
        assertThatCode(cache::close).doesNotThrowAnyException();
    }

    /** Closing the server closes its cache, so a second close of an ohc server threw the same NPE. */
    @ParameterizedTest
    @EnumSource(Variant.class)
    void closingAServerTwiceIsHarmless(Variant variant) throws Exception {
        ServeCommand.Args args = ServeCommand.parse(List.of("--variant", variant.label(), "--port", "0", "--loader",
                "memory", "--latency", "0us", "--value-size", "10", "--max-entries", "5", "--threads", "1"));
        OfferServer server = ServeCommand.start(args, new PrintStream(new ByteArrayOutputStream(), true,
                StandardCharsets.UTF_8));
        server.close();
        assertThatCode(server::close).doesNotThrowAnyException();
    }
}
