package dev.offheap.jcache;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.InvocationTargetException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.spi.ToolProvider;
import java.util.stream.Stream;
import javax.cache.CacheManager;
import javax.cache.Caching;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Java examples of the README and the guides in docs/ are code users copy: every one must compile
 * against the current API, and those that need nothing outside the library must run.
 *
 * <p>Each {@code ```java} block becomes a class: the block's imports, a common set of on-demand imports,
 * the names the block uses without declaring them (from {@link #CONTEXTS}, found by a marker in the
 * block), and the block's statements as the body of a {@code run()} method. Lines that are only
 * {@code ...} (a guide's "your code here") are dropped. A block no context matches is still compiled, with
 * no names supplied, so a new example that needs some fails here until they are given.
 *
 * <p>This test lives in offheap-jcache because that module sees every part the examples use: memory,
 * cache, jcache and the optional Micrometer binder.
 */
class DocumentationSnippetsTest {

    /** The documents whose Java blocks are checked, relative to the repository root. */
    private static final List<String> DOCUMENTS = List.of("README.md", "docs/alloc.md", "docs/cache.md");

    private static final String COMMON_IMPORTS = """
            import java.lang.foreign.*;
            import java.io.*;
            import java.nio.channels.*;
            import java.time.*;
            import java.util.*;
            import dev.offheap.memory.*;
            import dev.offheap.memory.alloc.*;
            import dev.offheap.cache.*;
            import dev.offheap.cache.micrometer.*;
            import io.micrometer.core.instrument.*;
            import io.micrometer.core.instrument.simple.*;
            """;

    /**
     * What a block needs besides itself, found by a marker (the first context whose marker the block
     * contains): members of the example's class, and whether the example runs here. Examples that would
     * map a file in /dev/shm, size memory from the machine or wait on a store are only compiled.
     */
    private static final List<Context> CONTEXTS = List.of(
            new Context("Budget.root(\"process\"", "", true),
            new Context("MemoryManager.builder()\n        .totalSize", "", true),
            new Context("mm.allocateGroup(", "", true),
            new Context("offheap.memory.fraction-of-physical", "", false),
            new Context("registerSpillCallback", """
                    MemoryManager mm;
                    List<List<MemorySegment>> inMemoryPartitions = new ArrayList<>();
                    void writeToDisk(List<MemorySegment> partition) { }
                    """, false),
            new Context("Segments.putLongBE", """
                    MemorySegment page = Arena.ofAuto().allocate(4096);
                    MemorySegment other = Arena.ofAuto().allocate(4096);
                    long key = 42L;
                    byte[] staging = "staged bytes".getBytes();
                    """, true),
            new Context("PooledAllocator.builder().budget(cache)", """
                    Budget cache = Budget.root("cache", 1L << 30);
                    """, true),
            new Context("Serializer.strings())", """
                    interface Repository { String describe(long id); }
                    Repository repository = id -> "offer " + id;
                    long send(MemorySegment description) { return description.byteSize(); }
                    """, true),
            new Context("OffHeapConfiguration<String, byte[]>", """
                    byte[] html = "<html></html>".getBytes();
                    """, true),
            new Context(".budget(componentBudget)", """
                    Budget componentBudget = Budget.root("component", 1L << 30);
                    static final MemoryLayout HEADER_LAYOUT = MemoryLayout.structLayout(
                            ValueLayout.JAVA_LONG.withName("id"), ValueLayout.JAVA_LONG.withName("length"));
                    static final MemoryLayout STAT_LAYOUT = MemoryLayout.sequenceLayout(18, ValueLayout.JAVA_LONG);
                    """, true),
            new Context(".maxEntryBytes(4L << 20)", """
                    Budget parentBudget = Budget.root("parent", 1L << 30);
                    byte[] bytes = new byte[100];
                    MeterRegistry meterRegistry = new SimpleMeterRegistry();
                    void log(Long key, RemovalCause cause) { }
                    byte[] fetch(Long key) { return new byte[] {key.byteValue()}; }
                    long crc(MemorySegment segment) { return segment.byteSize(); }
                    byte[] init() { return new byte[8]; }
                    byte[] update(byte[] old) { return old.clone(); }
                    """, true),
            new Context("Serializer.segments())", """
                    static final long MAX_BLOB = 1 << 20;
                    long id = 7L;
                    interface Store { long readInto(Long key, MemorySegment buffer); }
                    Store store = (key, buffer) -> 16;
                    WritableByteChannel channel = Channels.newChannel(java.io.OutputStream.nullOutputStream());
                    """, false));

    private record Context(String marker, String members, boolean runs) {
    }

    private record Snippet(String document, int line, String code, Context context) {
        String className() {
            return "Snippet_" + document.replaceAll("[^A-Za-z0-9]", "_") + "_" + line;
        }

        String label() {
            return document + ":" + line;
        }
    }

    @TempDir
    static Path classes;

    private static List<Snippet> snippets;
    private static Map<String, List<String>> errors;

    @BeforeAll
    static void compileAll() throws IOException {
        Path root = repositoryRoot();
        snippets = new ArrayList<>();
        for (String document : DOCUMENTS) {
            snippets.addAll(snippetsOf(root, document));
        }
        errors = compile(snippets, classes);
        if (!errors.isEmpty()) {
            // javac writes no class at all when any unit has errors: the others are compiled again, so
            // that one broken example does not stop the rest from running
            List<Snippet> clean = snippets.stream().filter(s -> !errors.containsKey(s.className())).toList();
            assertThat(compile(clean, classes)).as("errors of the examples that compiled with the rest").isEmpty();
        }
    }

    @Test
    void everyDocumentHasExamples() {
        for (String document : DOCUMENTS) {
            assertThat(snippets).as("java blocks of " + document).anyMatch(s -> s.document().equals(document));
        }
        assertThat(snippets).hasSizeGreaterThanOrEqualTo(11);
    }

    /**
     * The examples that run are those a context marked to run matches: a document edit that took a marker out of
     * its block left that example compiled only, and with every marker gone no example ran, while the test of
     * the runs still passed.
     */
    @Test
    void everyContextFindsItsExample() {
        for (Context context : CONTEXTS) {
            assertThat(snippets).as("java blocks with the marker %s", context.marker())
                    .anyMatch(s -> s.context() == context);
        }
    }

    @TestFactory
    Stream<DynamicTest> everyExampleCompiles() {
        return snippets.stream().map(snippet -> DynamicTest.dynamicTest(snippet.label() + " compiles", () ->
                assertThat(errors.getOrDefault(snippet.className(), List.of()))
                        .as("javac errors in the example at %s%s", snippet.label(),
                                snippet.context() == null ? " (no context in DocumentationSnippetsTest supplies its names)" : "")
                        .isEmpty()));
    }

    @TestFactory
    Stream<DynamicTest> examplesThatNeedNothingOutsideTheLibraryRun() {
        return snippets.stream().filter(s -> s.context() != null && s.context().runs())
                .map(snippet -> DynamicTest.dynamicTest(snippet.label() + " runs", () -> run(snippet)));
    }

    private static void run(Snippet snippet) throws Exception {
        assertThat(errors.getOrDefault(snippet.className(), List.of())).as("compiles").isEmpty();
        try (URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()},
                DocumentationSnippetsTest.class.getClassLoader())) {
            Class<?> type = loader.loadClass(snippet.className());
            var constructor = type.getDeclaredConstructor();
            constructor.setAccessible(true);
            Object example = constructor.newInstance();
            var method = type.getDeclaredMethod("run");
            method.setAccessible(true);
            try {
                method.invoke(example);
            } catch (InvocationTargetException e) {
                throw new AssertionError("the example at " + snippet.label() + " threw " + e.getCause(), e.getCause());
            }
        }
    }

    /** The JCache example creates a cache in the default manager, which outlives this test class. */
    @AfterAll
    static void destroyTheExamplesJCache() {
        CacheManager manager = Caching.getCachingProvider(OffHeapCachingProvider.class.getName()).getCacheManager();
        if (manager.getCache("pages") != null) {
            manager.destroyCache("pages");
        }
    }

    // ------------------------------------------------------------------ extraction

    private static Path repositoryRoot() {
        Path dir = Path.of("").toAbsolutePath();
        for (Path p = dir; p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve("README.md")) && Files.isDirectory(p.resolve("docs"))
                    && Files.isRegularFile(p.resolve("mvnw"))) {
                return p;
            }
        }
        throw new IllegalStateException("no repository root (README.md, docs/, mvnw) above " + dir);
    }

    private static List<Snippet> snippetsOf(Path root, String document) throws IOException {
        List<String> lines = Files.readAllLines(root.resolve(document), StandardCharsets.UTF_8);
        List<Snippet> found = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            if (!lines.get(i).strip().equals("```java")) {
                continue;
            }
            int start = i + 1;
            StringBuilder code = new StringBuilder();
            for (i = start; i < lines.size() && !lines.get(i).strip().equals("```"); i++) {
                code.append(lines.get(i)).append('\n');
            }
            if (i == lines.size()) {
                throw new IllegalStateException(document + ":" + start + ": a java block that never closes");
            }
            String text = code.toString();
            Context context = CONTEXTS.stream().filter(c -> text.contains(c.marker())).findFirst().orElse(null);
            found.add(new Snippet(document, start, text, context));
        }
        return found;
    }

    /** The example as a compilation unit: imports first, then a class whose run() holds the statements. */
    private static String source(Snippet snippet) {
        StringBuilder imports = new StringBuilder(COMMON_IMPORTS);
        StringBuilder body = new StringBuilder();
        for (String line : snippet.code().split("\n", -1)) {
            String stripped = line.strip();
            if (stripped.startsWith("import ")) {
                imports.append(stripped).append('\n');
            } else if (!stripped.startsWith("...")) {
                body.append("        ").append(line).append('\n');
            } else {
                // "...": the reader's own code; a comment after it stays a comment
                int comment = line.indexOf("//");
                body.append(comment < 0 ? "" : "        " + line.substring(comment)).append('\n');
            }
        }
        String members = snippet.context() == null ? "" : snippet.context().members();
        return imports + "\nclass " + snippet.className() + " {\n" + members.indent(4)
                + "    void run() throws Exception {\n" + body + "    }\n}\n";
    }

    /**
     * Compiles every example in one javac run, through {@link java.util.spi.ToolProvider} (java.base):
     * the test runs as a patched module that does not read java.compiler.
     *
     * @return javac's error lines by class name
     */
    private static Map<String, List<String>> compile(List<Snippet> all, Path output) throws IOException {
        ToolProvider javac = ToolProvider.findFirst("javac")
                .orElseThrow(() -> new AssertionError("the tests run on a JDK without javac"));
        Path sources = Files.createDirectories(output.resolve("sources"));
        List<String> arguments = new ArrayList<>(List.of("-d", output.toString(),
                "-classpath", System.getProperty("java.class.path"), "-proc:none", "-nowarn", "-Xmaxerrs", "1000"));
        Map<String, String> sourceByClass = new LinkedHashMap<>();
        for (Snippet snippet : all) {
            String source = source(snippet);
            sourceByClass.put(snippet.className(), source);
            Path file = sources.resolve(snippet.className() + ".java");
            Files.writeString(file, source, StandardCharsets.UTF_8);
            arguments.add(file.toString());
        }
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int status = javac.run(new PrintWriter(out), new PrintWriter(err), arguments.toArray(String[]::new));
        Map<String, List<String>> byClass = new LinkedHashMap<>();
        List<String> unattributed = new ArrayList<>();
        Pattern error = Pattern.compile("^(.*[/\\\\])?(Snippet_\\w+)\\.java:(\\d+): error: (.*)$");
        for (String line : (out + "\n" + err).split("\\R")) {
            Matcher m = error.matcher(line);
            if (m.matches()) {
                String name = m.group(2);
                byClass.computeIfAbsent(name, k -> new ArrayList<>()).add("line " + m.group(3)
                        + " of the generated class: " + m.group(4) + " -- " + lineOf(sourceByClass.get(name), Integer.parseInt(m.group(3))));
            } else if (line.contains("error:")) {
                unattributed.add(line);
            }
        }
        assertThat(unattributed).as("javac errors outside the examples").isEmpty();
        assertThat(status == 0).as("javac's status agrees with its errors: %s", byClass).isEqualTo(byClass.isEmpty());
        return byClass;
    }

    private static String lineOf(String source, int line) {
        String[] lines = source == null ? new String[0] : source.split("\n", -1);
        return line >= 1 && line <= lines.length ? lines[line - 1].strip() : "";
    }
}
