package dev.offheap.cli.inspect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.offheap.cache.OffHeapCache;
import dev.offheap.cache.Serializer;
import dev.offheap.cli.Main;
import dev.offheap.cli.UsageException;
import dev.offheap.cli.bench.Json;
import dev.offheap.memory.Budget;
import dev.offheap.memory.MemoryManager;
import dev.offheap.memory.MemoryType;
import dev.offheap.memory.alloc.DebugMode;
import dev.offheap.memory.alloc.NativeAllocator;
import dev.offheap.memory.alloc.PooledAllocator;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code offheap inspect}: its command line, what it shows of this JVM (read through the platform MBean
 * server), and of another JVM it attaches to ({@link InspectTarget}).
 */
class InspectCommandTest {
    record Result(int code, String out, String err) {
    }

    static Result run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Main.standard().run(List.of(args), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "abc|expected a process id",
            "0|expected a process id (a positive number), got 0",
            "12 13|one process id at a time",
            "--json|need a process id",
            "--watch 1s|need a process id",
            "--reports|need a process id",
            "12 --reports --reports|--reports given twice",
            "12 --reports=all|--reports takes no value",
            "12 --watch 0s|--watch: must be longer than 0",
            "12 --count 0|--count",
            "12 --count x|--count",
            "12 --json --json|--json given twice",
            "12 --watch 1s --watch 2s|--watch given twice",
            "12 --json=yes|--json takes no value",
            "12 --frobnicate|unknown option '--frobnicate'",
            "12 --watch|--watch"})
    void badCommandLinesAreUsageErrors(String line, String message) {
        Result r = run(("inspect " + line).split(" "));
        assertThat(r.code()).as(r.err()).isEqualTo(Main.USAGE);
        assertThat(r.err()).contains(message).contains("Usage: offheap inspect");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void parseDefaults() throws UsageException {
        assertThat(InspectCommand.parse(List.of("42"))).isEqualTo(new InspectCommand.Args(42, false, null, 1, false));
        assertThat(InspectCommand.parse(List.of("42", "--watch", "2s"))).isEqualTo(
                new InspectCommand.Args(42, false, Duration.ofSeconds(2), 0, false));
        assertThat(InspectCommand.parse(List.of("--count=3", "42", "--json"))).isEqualTo(
                new InspectCommand.Args(42, true, InspectCommand.DEFAULT_INTERVAL, 3, false));
        assertThat(InspectCommand.parse(List.of("42", "--reports"))).isEqualTo(
                new InspectCommand.Args(42, false, null, 1, true));
        assertThat(InspectCommand.parse(List.of())).isEqualTo(new InspectCommand.Args(-1, false, null, 1, false));
        assertThatThrownBy(() -> InspectCommand.parse(List.of("-5"))).isInstanceOf(UsageException.class)
                .hasMessageContaining("unknown option '-5'");
    }

    @Test
    void helpNamesWhatItShows() {
        Result r = run("inspect", "--help");
        assertThat(r.code()).isZero();
        assertThat(r.out()).startsWith("Usage: offheap inspect").contains("--watch D").contains("--count N")
                .contains("--json").contains("--reports").contains("dev.offheap:type=MemoryManager")
                .contains("dev.offheap:type=Allocator").contains("dev.offheap:type=Cache");
    }

    @Test
    void aProcessThatDoesNotExistFailsWithExitCode1() {
        long pid = deadPid();
        Result r = run("inspect", Long.toString(pid));
        assertThat(r.code()).isEqualTo(Main.FAILED);
        assertThat(r.err()).contains("no process " + pid);
    }

    @Test
    void thisJvmsManagersCachesAndBuffersAreShown() {
        try (MemoryManager manager = MemoryManager.builder().name("inspect-self-manager").totalSize(1 << 20)
                .pageSize(64 * 1024).type(MemoryType.NATIVE).build();
             OffHeapCache<Long, String> cache = OffHeapCache.builder(Serializer.longs(), Serializer.strings())
                     .name("inspect-self-cache").capacity(4 << 20).recordStats(true).build();
             OffHeapCache<Long, String> idle = OffHeapCache.builder(Serializer.longs(), Serializer.strings())
                     .name("inspect-idle-cache").capacity(4 << 20).recordStats(true).build()) {
            idle.put(1L, "never read");
            manager.allocatePages("owner-a", 2);
            manager.allocatePages("owner-b", 1);
            for (long k = 0; k < 5; k++) {
                cache.put(k, "v" + k);
            }
            cache.getIfPresent(1L);
            cache.getIfPresent(77L);
            ByteBuffer direct = ByteBuffer.allocateDirect(100_000);

            Result r = run("inspect", Long.toString(ProcessHandle.current().pid()));
            assertThat(r.code()).as(r.err()).isZero();
            String out = r.out();
            assertThat(out).startsWith("JVM " + ProcessHandle.current().pid() + ": ");
            assertThat(out).containsPattern("(?m)^  heap +used .+, committed .+, max ");
            assertThat(out).containsPattern("(?m)^  direct +[0-9,]+ buffers?, ");
            // name, type, page size, total, used bytes, used pages and free pages
            assertThat(out).containsPattern(Pattern.compile(
                    "(?m)^  inspect-self-manager +NATIVE +64\\.0 KiB +1\\.0 MiB +192 KiB +3 +13 "));
            assertThat(out).contains("owners of 'inspect-self-manager': owner-a 128 KiB, owner-b 64.0 KiB");
            // name, capacity, entries, hit ratio 50%, 1 hit, 1 miss
            assertThat(out).containsPattern(Pattern.compile(
                    "(?m)^  inspect-self-cache +4\\.0 MiB +[0-9.]+ [KM]iB +5 +50\\.0% +1 +1 "));
            // no lookup yet: the MBean's 1.0 would read as a perfect cache
            assertThat(out).containsPattern(Pattern.compile("(?m)^  inspect-idle-cache +4\\.0 MiB +[0-9.]+ [KM]iB +1 +n/a +0 +0 "));
            assertThat(direct.capacity()).isEqualTo(100_000);
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void jsonHasTheNumbersInBytes() {
        try (MemoryManager manager = MemoryManager.builder().name("inspect-json-manager").totalSize(1 << 20)
                .pageSize(32 * 1024).type(MemoryType.HEAP).build();
             Budget child = manager.budget().child("json-child", 128 * 1024, 64 * 1024)) {
            manager.allocatePages("json-owner", 4);
            child.reserve(1000);
            Result r = run("inspect", Long.toString(ProcessHandle.current().pid()), "--json");
            assertThat(r.code()).as(r.err()).isZero();
            Map<String, Object> doc = (Map<String, Object>) Json.parse(r.out());
            assertThat(((Number) doc.get("pid")).longValue()).isEqualTo(ProcessHandle.current().pid());
            assertThat((Map<String, Object>) doc.get("heap")).containsKeys("used", "committed", "max");
            List<Map<String, Object>> managers = (List<Map<String, Object>>) doc.get("memoryManagers");
            Map<String, Object> m = managers.stream().filter(x -> "inspect-json-manager".equals(x.get("name")))
                    .findFirst().orElseThrow();
            assertThat(m.get("memoryType")).isEqualTo("HEAP");
            assertThat(((Number) m.get("usedPages")).longValue()).isEqualTo(4);
            // the pages and the child budget's reservation
            assertThat(((Number) m.get("usedBytes")).longValue()).isEqualTo(4 * 32 * 1024 + 64 * 1024);
            assertThat(((Number) m.get("totalPages")).longValue()).isEqualTo(32);
            assertThat((Map<String, Object>) m.get("usageByOwner")).containsEntry("json-owner", (double) (4 * 32 * 1024));
            assertThat((List<Map<String, Object>>) m.get("childBudgets")).containsExactly(Map.of("name", "json-child",
                    "usedBytes", 1000.0, "reservedBytes", 64.0 * 1024, "limitBytes", 128.0 * 1024));
            child.release(1000);
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void allocatorsAreShownWithTheirBudgetsAndOnRequestTheirReports() throws Exception {
        try (Budget service = Budget.root("inspect-service", 8L << 20);
             PooledAllocator pooled = PooledAllocator.builder().name("inspect-pooled").budget(service)
                     .debug(DebugMode.FULL).capacity(4L << 20).build();
             NativeAllocator malloc = NativeAllocator.builder().name("inspect-malloc").registerMBean(true).build();
             NativeAllocator unregistered = NativeAllocator.builder().name("inspect-unregistered").build()) {
            MemorySegment kept = allocateTwoAndKeepOne(pooled);
            malloc.allocate(4096);
            unregistered.allocate(1);
            String pid = Long.toString(ProcessHandle.current().pid());

            Result r = run("inspect", pid);
            assertThat(r.code()).as(r.err()).isZero();
            // name, kind, debug, allocated, allocations, footprint, capacity, threads, budget, used, limit, problems
            assertThat(r.out()).containsPattern(Pattern.compile(
                    "(?m)^  inspect-pooled +pooled +full +2\\.0 KiB +1 +[0-9.]+ [KM]iB +4\\.0 MiB +[0-9]+ +inspect-service"
                            + " +[0-9.]+ [KM]iB +8\\.0 MiB +1$"));
            assertThat(r.out()).containsPattern(Pattern.compile(
                    "(?m)^  inspect-malloc +malloc +off +4\\.0 KiB +1 +4\\.0 KiB +- +0 +- +- +- +0$"));
            assertThat(r.out()).doesNotContain("inspect-unregistered").doesNotContain("Report of allocator");

            Result reports = run("inspect", pid, "--reports");
            assertThat(reports.code()).as(reports.err()).isZero();
            // FULL mode: the live allocation under the method that made it, and the double free it saw
            assertThat(reports.out()).contains("Report of allocator 'inspect-pooled':")
                    .contains("allocateTwoAndKeepOne").contains("freed again");

            Result json = run("inspect", pid, "--json", "--reports");
            Map<String, Object> doc = (Map<String, Object>) Json.parse(json.out());
            Map<String, Object> a = ((List<Map<String, Object>>) doc.get("allocators")).stream()
                    .filter(x -> "inspect-pooled".equals(x.get("name"))).findFirst().orElseThrow();
            assertThat(a).containsEntry("kind", "pooled").containsEntry("debugMode", "FULL")
                    .containsEntry("allocatedBytes", 2048.0).containsEntry("liveAllocations", 1.0)
                    .containsEntry("budgetPath", "inspect-service").containsEntry("budgetLimitBytes", (double) (8L << 20))
                    .containsEntry("problemsSeen", 1.0);
            assertThat((String) a.get("report")).contains("allocateTwoAndKeepOne");
            assertThat(kept.byteSize()).isEqualTo(2048);
        }
        assertThat(run("inspect", Long.toString(ProcessHandle.current().pid())).out()).doesNotContain("inspect-pooled");
    }

    @Test
    void twoObjectsOfOneNameAreShownUnderTheNamesTheyAreRegisteredUnder() {
        try (PooledAllocator first = PooledAllocator.builder().name("inspect-twin").build();
             PooledAllocator second = PooledAllocator.builder().name("inspect-twin").build();
             MemoryManager one = MemoryManager.builder().name("inspect-twin-manager").totalSize(1 << 20).pageSize(32 * 1024)
                     .build();
             MemoryManager other = MemoryManager.builder().name("inspect-twin-manager").totalSize(1 << 20)
                     .pageSize(32 * 1024).build()) {
            first.allocate(16);
            second.allocate(1024);
            one.allocatePage("a");
            other.allocatePages("b", 2);
            Result r = run("inspect", Long.toString(ProcessHandle.current().pid()));
            assertThat(r.code()).as(r.err()).isZero();
            assertThat(r.out()).containsPattern("(?m)^  inspect-twin +pooled +off +16 B +1 ")
                    .containsPattern("(?m)^  inspect-twin-2 +pooled +off +1\\.0 KiB +1 ")
                    .containsPattern("(?m)^  inspect-twin-manager +NATIVE +32\\.0 KiB +1\\.0 MiB +32\\.0 KiB +1 ")
                    .containsPattern("(?m)^  inspect-twin-manager-2 +NATIVE +32\\.0 KiB +1\\.0 MiB +64\\.0 KiB +2 ");
        }
    }

    /** Allocates two blocks, frees one twice (the second free is refused and recorded), keeps the other. */
    private static MemorySegment allocateTwoAndKeepOne(PooledAllocator allocator) {
        MemorySegment kept = allocator.allocate(2048);
        MemorySegment freed = allocator.allocate(100);
        allocator.free(freed);
        assertThatThrownBy(() -> allocator.free(freed)).isInstanceOf(IllegalStateException.class);
        return kept;
    }

    @Test
    void aClosedManagerIsNoLongerShown() {
        MemoryManager manager = MemoryManager.builder().name("inspect-closed-manager").totalSize(1 << 20).pageSize(32 * 1024)
                .build();
        assertThat(run("inspect", Long.toString(ProcessHandle.current().pid())).out()).contains("inspect-closed-manager");
        manager.close();
        assertThat(run("inspect", Long.toString(ProcessHandle.current().pid())).out()).doesNotContain("inspect-closed-manager");
    }

    @Test
    void nmtSummaryIsParsed() {
        String summary = """
                Native Memory Tracking:

                Total: reserved=1462848KB, committed=103432KB
                       malloc: 21256KB #12345
                -                 Java Heap (reserved=262144KB, committed=16384KB)
                -                     Other (reserved=4096KB, committed=2048KB)
                """;
        assertThat(Snapshot.parseNmt(summary)).isEqualTo(new Snapshot.Nmt(1462848L * 1024, 103432L * 1024, 2048L * 1024));
        assertThat(Snapshot.parseNmt("Native memory tracking is not enabled")).isNull();
    }

    @Test
    @Timeout(120)
    void anotherJvmIsInspectedThroughTheAttachMechanism() throws Exception {
        Process target = startTarget();
        try {
            String pid = Long.toString(target.pid());
            Result r = run("inspect", pid);
            assertThat(r.code()).as(r.err()).isZero();
            assertThat(r.out()).startsWith("JVM " + pid + ": dev.offheap.cli.inspect.InspectTarget, ")
                    // used: the owner's 3 pages and the child budget's 64 KiB; free: 32 pages less those 5
                    .containsPattern("(?m)^  target-manager +NATIVE +32\\.0 KiB +1\\.0 MiB +160 KiB +3 +27 ")
                    .contains("owners of 'target-manager': target-owner 96.0 KiB")
                    .contains("child budgets of 'target-manager': target-index 64.0 KiB of 256 KiB")
                    .containsPattern("(?m)^  target-cache +4\\.0 MiB +[0-9.]+ [KM]iB +10 +75\\.0% +3 +1 ")
                    .containsPattern("(?m)^  direct +[0-9,]+ buffers?, 1\\.0 MiB")
                    .containsPattern("(?m)^  target-allocator +pooled +sampled +2\\.9 KiB +3 ");
            Result reports = run("inspect", pid, "--reports");
            assertThat(reports.code()).as(reports.err()).isZero();
            // SAMPLED at rate 1 tracks every allocation: the report names the method that made them
            assertThat(reports.out()).contains("Report of allocator 'target-allocator':")
                    .contains("3 allocations, 3000 bytes").contains("allocateInALeakySite");
            assertThat(r.out()).containsPattern("(?m)^  process +resident [0-9.]+ [KMG]iB, peak ");

            Result listed = run("inspect");
            assertThat(listed.code()).isZero();
            assertThat(listed.out()).containsPattern("(?m)^ +" + pid + "  dev\\.offheap\\.cli\\.inspect\\.InspectTarget");

            Result watched = run("inspect", pid, "--watch", "50ms", "--count", "2", "--json");
            assertThat(watched.code()).as(watched.err()).isZero();
            // two JSON objects, one after the other
            assertThat(Pattern.compile("(?m)^\\{$").matcher(watched.out()).results().count()).isEqualTo(2);
        } finally {
            target.getOutputStream().close();
            if (!target.waitFor(20, TimeUnit.SECONDS)) {
                target.destroyForcibly();
            }
        }
    }

    @Test
    @Timeout(120)
    void watchingAJvmThatEndsStopsWithTheSnapshotsItTook() throws Exception {
        Process target = startTarget();
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            Thread watcher = Thread.ofPlatform().start(() -> {
                int code = Main.standard().run(List.of("inspect", Long.toString(target.pid()), "--watch", "100ms"),
                        new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
                if (code != 0) {
                    throw new AssertionError("exit code " + code + ": " + err);
                }
            });
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!out.toString(StandardCharsets.UTF_8).contains("target-cache") && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(out.toString(StandardCharsets.UTF_8)).contains("target-cache");
            target.destroyForcibly().waitFor();
            watcher.join(TimeUnit.SECONDS.toMillis(60));
            assertThat(watcher.isAlive()).isFalse();
            assertThat(err.toString(StandardCharsets.UTF_8)).contains("JVM " + target.pid() + " can no longer be read")
                    .contains("stopped after");
        } finally {
            target.destroyForcibly();
        }
    }

    /** Starts {@link InspectTarget} on this JVM's class path and waits until it says it is ready. */
    static Process startTarget() throws IOException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process p = new ProcessBuilder(java.toString(), "--enable-native-access=ALL-UNNAMED", "-Xmx128m", "-cp",
                System.getProperty("java.class.path"), InspectTarget.class.getName())
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line = in.readLine();
        if (!"ready".equals(line)) {
            p.destroyForcibly();
            throw new IllegalStateException("the target JVM did not start: it printed " + line);
        }
        return p;
    }

    /** @return a process id that no running process has */
    private static long deadPid() {
        long pid = 4_000_000;
        while (ProcessHandle.of(pid).isPresent()) {
            pid++;
        }
        return pid;
    }
}
