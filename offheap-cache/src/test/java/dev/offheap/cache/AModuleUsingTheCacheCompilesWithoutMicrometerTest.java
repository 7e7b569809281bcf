package dev.offheap.cache;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.spi.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Micrometer is optional (offheap-cache's pom declares it optional, docs/cache.md calls the binder optional, and
 * the README's requirements name nothing else): an application module that requires dev.offheap.cache must
 * compile on a module path without micrometer-core. dev.offheap.cache read it "requires static transitive",
 * and javac then looked for micrometer.core on the module path of every module that reads dev.offheap.cache
 * ("error: module not found: micrometer.core"), so such an application did not compile until it added the
 * optional dependency.
 */
class AModuleUsingTheCacheCompilesWithoutMicrometerTest {

    /** Where the tests found the library's classes: its module, a classes directory or a jar with module-info. */
    private static Path locationOf(Class<?> type) {
        try {
            return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void anApplicationModuleThatRequiresTheCacheCompilesWithTheLibraryAlone(@TempDir Path dir) throws IOException {
        Path sources = Files.createDirectories(dir.resolve("src/app/app"));
        Files.writeString(dir.resolve("src/app/module-info.java"), "module app { requires dev.offheap.cache; }\n");
        Files.writeString(sources.resolve("Main.java"), """
                package app;

                import dev.offheap.cache.OffHeapCache;
                import dev.offheap.cache.Serializer;

                public class Main {
                    public static void main(String[] args) {
                        try (OffHeapCache<Long, String> cache = OffHeapCache.builder(Serializer.longs(), Serializer.strings())
                                .capacity(1 << 20).build()) {
                            cache.put(1L, "one");
                        }
                    }
                }
                """);
        String modulePath = locationOf(OffHeapCache.class) + File.pathSeparator + locationOf(dev.offheap.memory.Budget.class);
        StringWriter out = new StringWriter();
        int status = ToolProvider.findFirst("javac").orElseThrow().run(new PrintWriter(out), new PrintWriter(out),
                "-d", dir.resolve("classes").toString(), "--module-path", modulePath, "-proc:none",
                dir.resolve("src/app/module-info.java").toString(), sources.resolve("Main.java").toString());
        assertThat(out.toString()).as("javac's output").doesNotContain("error");
        assertThat(status).isZero();
    }
}
