package dev.offheap.cli.compare;

import dev.offheap.cli.BenchCommand;
import dev.offheap.cli.Command;
import dev.offheap.cli.Counts;
import dev.offheap.cli.CommandException;
import dev.offheap.cli.UsageException;
import dev.offheap.cli.bench.RunInfo;
import dev.offheap.memory.ByteSize;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * {@code offheap compare}: does off-heap pay for my workload? Runs the seed's offer service with each
 * cache variant in its own JVM, at every setting of the sweep, and writes the seed's table, a markdown
 * report, JSON and charts. One run at a time per instance; the variants run one after the other.
 */
public final class CompareCommand implements Command {
    private final Function<Variant, List<String>> extraJvmOptions;

    /** The command as {@code bin/offheap} runs it. */
    public CompareCommand() {
        this(v -> List.of());
    }

    /**
     * @param extraJvmOptions more JVM options for a variant's JVM (tests use it to make one fail)
     */
    public CompareCommand(Function<Variant, List<String>> extraJvmOptions) {
        this.extraJvmOptions = extraJvmOptions;
    }

    @Override
    public String name() {
        return "compare";
    }

    @Override
    public String summary() {
        return "does off-heap pay for my workload? on-heap vs off-heap caches, GC, latency, throughput";
    }

    @Override
    public String usage() {
        return """
                Usage: offheap compare [--value-size B1,B2..] [--max-entries N1,N2..] [--variants V1,V2..]
                                       [--threads N] [--requests N | --duration D] [--rate N] [--warmup N]
                                       [--keys N] [--heap SIZE] [--gc g1|zgc|parallel] [--loader db|memory] [--latency D]
                                       [--db DIR] [--out DIR] [--seed N] [--nmt] [--timeout D] [--dry-run]
                """;
    }

    @Override
    public String help() {
        return usage() + """

                Runs the seed's offer service (offers by id, a cache in front of a store, misses loaded
                from the store) with each cache variant in its own JVM, same heap and collector for all,
                and measures the measured phase: GC cycles and time, the longest GC pause, heap peak and
                after GC, native memory, request latency p50/p99/p99.9/max, throughput, hit ratio, CPU time.
                A list of value sizes or max entries runs every combination.

                Variants: on-heap (Caffeine), off-heap (this project's cache used natively: misses loaded
                into native memory, every request read in place with OffHeapCache.readOrLoad, as a service
                that writes the bytes out would), off-heap-copy (the same cache as a drop-in: string values,
                every hit copied into a new String), ohc (OHC, the seed's, copying get).

                Options (defaults: the seed's 100,000-byte values, 5,000 entries, 10 threads):
                  --value-size LIST   description sizes in bytes, e.g. 100000,200000,300000 (k = 1024)
                  --max-entries LIST  cache bounds in entries, e.g. 5000,10000,15000
                  --variants LIST     which variants, in this order (default on-heap,off-heap,off-heap-copy,ohc)
                  --threads N         request threads (default 10)
                  --requests N        measured requests, all threads together (default 1000000)
                  --duration D        or measure for a time instead, e.g. 30s
                  --rate N            measure an open loop: N requests per second, all threads together,
                                      each started on schedule and timed from its scheduled start, so
                                      requests held up behind a GC pause count their wait (default: a
                                      closed loop, each thread sends when its last request returns,
                                      as the seed's load generator did); pick a rate every variant
                                      sustains, or the report says which fell behind
                  --warmup N|auto     requests before measuring (default auto: 4 x max entries, 20000 at 5000)
                  --keys N            offer ids drawn from 0..N-1, uniformly (default 2 x max entries);
                                      at least the largest max entries, or the cache would never fill
                  --heap SIZE|auto    -Xmx and -Xms of every variant JVM, e.g. 2g (default auto, per setting
                                      and the same for its variants: 1.5 x value size x max entries
                                      + 256 MiB, rounded up to 256 MiB, at least 512 MiB); a run where a
                                      variant's heap and its off-heap cache do not fit in the machine's
                                      memory is refused
                  --gc NAME           g1 (default), zgc or parallel
                  --loader NAME       db: an H2 database on local disk (default); memory: generated in
                                      memory after --latency (default 200us)
                  --db DIR            the database folder (default ~/.cache/offheap/compare, or under
                                      $XDG_CACHE_HOME); created and filled on first use, rebuilt if corrupt
                  --out DIR           output folder (default ./offheap-results/compare)
                  --seed N            random seed of the request ids (default 42)
                  --nmt               run the variant JVMs with native memory tracking and report its total
                  --timeout D         kill a variant JVM that runs longer (default 10m, plus the measured
                                      phase where --duration or --rate sets its length)
                  --dry-run           print the plan and the variant JVMs' command lines, run nothing
                  -h, --help          this help
                Short names: -s --value-size, -e --max-entries, -t --threads, -n --requests, -d --duration,
                -r --rate, -w --warmup, -k --keys, -o --out. A value follows its option, or an = after it:
                --threads 4, --threads=4 or -t=4; auto, g1, zgc, parallel, db, memory and the variants in any case.

                Writes to the output folder: report.md (tables, ratios, the seed's numbers), results.json,
                compare-throughput.png, compare-p99.png, compare-gc-time.png, and logs/ with each JVM's output.
                Exit code 1 if a variant failed (it is shown as failed; the others still run).
                """;
    }

    @Override
    public void run(List<String> argv, PrintStream out, PrintStream err) throws UsageException, CommandException {
        CompareOptions o = CompareOptions.parse(argv);
        String heaps = heapSummary(o);
        int settings = o.valueSizes().size() * o.maxEntries().size();
        int total = settings * o.variants().size();
        out.printf(Locale.ROOT, "offheap compare: %s x %s, %s, %s, %s, %s%s after %s; results to %s%n",
                Counts.of(o.variants().size(), "variant"), Counts.of(settings, "setting"), heaps, o.collector().label(),
                Counts.of(o.threads(), "thread"), o.duration() != null ? Durations.format(o.duration()) + " measured"
                        : Counts.of(o.requests(), "measured request"),
                o.rate() == 0 ? "" : String.format(Locale.ROOT, " at %,d requests/s (open loop)", o.rate()),
                o.warmupRequests() == CompareOptions.AUTO ? CompareOptions.WARMUP_PER_ENTRY + " x max entries warmup requests"
                        : Counts.of(o.warmupRequests(), "warmup request"), o.out());
        if (o.dryRun()) {
            for (int size : o.valueSizes()) {
                for (int entries : o.maxEntries()) {
                    VariantLauncher launcher = launcher(o, size, entries);
                    for (Variant v : o.variants()) {
                        Workload w = o.workload(v, size, entries);
                        String name = fileName(w);
                        // quoted as a shell reads them: a path with a space is one argument
                        out.println("  " + quoted(launcher.command(w, o.out().resolve("logs").resolve(name
                                + ".json"), o.out().resolve("logs").resolve(name + "-hs_err.log"))));
                    }
                }
            }
            return;
        }
        // after the dry run, which may plan a run for a larger machine than this one
        checkHeapsFit(o, RunInfo.memoryLimitBytes());
        try {
            Files.createDirectories(o.out());
        } catch (IOException e) {
            throw new CommandException("cannot create the output folder " + o.out() + ": "
                    + dev.offheap.cli.Folders.whyNotCreated(o.out(), e), e);
        }
        checkWritable(o.out());
        String store = prepareStore(o, out);
        RunInfo info = RunInfo.current(System.getProperty(BenchCommand.COMMAND_PROPERTY, "offheap") + " compare "
                + quoted(argv), "compare");
        List<VariantResult> results = new ArrayList<>();
        Path logs = o.out().resolve("logs");
        int n = 0;
        for (int size : o.valueSizes()) {
            for (int entries : o.maxEntries()) {
                VariantLauncher launcher = launcher(o, size, entries);
                for (Variant v : o.variants()) {
                    Workload w = o.workload(v, size, entries);
                    out.print(settingLine(++n, total, size, entries, v.label()));
                    out.flush();
                    Progress progress = new Progress(out);
                    VariantResult r;
                    try {
                        r = launcher.run(w, logs, fileName(w), progress::update);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new CommandException("interrupted while " + v.label() + " ran", e);
                    }
                    if (!r.ok() && r.failure().startsWith(VariantLauncher.STOPPED)) {
                        // the JVM is shutting down: a report of the variants run so far would replace the last
                        // whole one, and the JVM may halt while it is written
                        out.println(" " + r.failure());
                        throw new CommandException("stopped before the run was over: no report written (the"
                                + " variants' output is in " + logs + ")");
                    }
                    results.add(r);
                    if (r.ok()) {
                        out.println(doneLine(r));
                    } else {
                        out.printf(Locale.ROOT, " FAILED after %.1f s: %s%n", r.jvmSeconds(), r.failure());
                    }
                }
            }
        }
        List<Path> charts = new ArrayList<>();
        try {
            charts.addAll(CompareCharts.write(results, o.out()));
        } catch (IOException | RuntimeException | LinkageError | java.awt.AWTError e) {
            err.println("offheap compare: warning: could not draw the charts (" + e + "); the report has the numbers");
        }
        CompareReport report = new CompareReport(o, info, store, results,
                charts.stream().map(p -> p.getFileName().toString()).toList());
        Path md = o.out().resolve("report.md");
        Path json = o.out().resolve("results.json");
        // the table first: should the files fail after all, the run's numbers are on the screen
        out.println();
        out.print(report.table());
        report.ratioLines().forEach(l -> out.println(l));
        report.verdictLines().forEach(l -> out.println("does off-heap pay? " + l));
        report.noVerdictLine().ifPresent(l -> out.println("does off-heap pay? " + l));
        if (report.busy()) {
            out.println("offheap compare: note: other processes used more than "
                    + Math.round(100 * CompareReport.BUSY_SHARE) + "% of the CPU during the run: times are noisy; see "
                    + md);
        }
        try {
            Files.writeString(md, report.markdown());
            Files.writeString(json, JsonWriter.write(report.json()));
        } catch (IOException e) {
            throw new CommandException("cannot write the report to " + o.out() + ": " + e, e);
        }
        List<Path> files = new ArrayList<>(List.of(md, json));
        files.addAll(charts);
        out.println("offheap: wrote " + String.join(", ", files.stream().map(Path::toString).toList()));
        long failed = results.stream().filter(r -> !r.ok()).count();
        if (failed > 0) {
            throw new CommandException(failed + " of " + results.size() + " variant runs failed (shown as FAILED "
                    + "above and in " + md + "; their output is in " + logs + ")");
        }
    }

    /**
     * @param n the variant run's number, from 1
     * @param total how many variant runs there are
     * @param size the setting's value size in bytes
     * @param entries the setting's max entries
     * @param variant the variant's label
     * @return the start of a variant run's progress line, e.g. {@code [1/4] 100,000 B, 5,000 entries, on-heap:}
     */
    static String settingLine(int n, int total, int size, int entries, String variant) {
        return String.format(Locale.ROOT, "[%d/%d] %,d B, %s, %s:", n, total, size, Counts.of(entries, "entry",
                "entries"), variant);
    }

    /**
     * @param r a variant run that succeeded
     * @return the end of its progress line, e.g. {@code  done in 12.3 s: 45,678 rps, GC 12 cycles 0.150 s, p99 300 us}
     */
    static String doneLine(VariantResult r) {
        return String.format(Locale.ROOT, " done in %.1f s: %s, GC %s %s, p99 %s", r.jvmSeconds(),
                CompareReport.rate(r.throughput()), Counts.of(r.gcCycles(), "cycle"),
                CompareReport.seconds(r.gcTimeMillis() / 1e3),
                CompareReport.latency(r.p99Micros()));
    }

    /**
     * Fails before the run, which may take hours, if its output could not be written afterwards: the
     * variants' logs and results go to {@code logs/}, the report to {@code report.md} and
     * {@code results.json}. Found only when written, a {@code logs} that could not be created failed every
     * variant as "could not start its JVM", and a report that could not be written lost the run.
     */
    private static void checkWritable(Path dir) throws CommandException {
        for (Path file : List.of(dir.resolve("report.md"), dir.resolve("results.json"))) {
            if (Files.isDirectory(file) || (Files.exists(file) && !Files.isWritable(file))) {
                throw new CommandException("cannot write " + file + (Files.isDirectory(file)
                        ? ": a directory of that name is in the way" : ": not writable"));
            }
        }
        Path logs = dir.resolve("logs");
        try {
            Files.createDirectories(logs);
        } catch (IOException e) {
            throw new CommandException("cannot write to the output folder " + dir + ": "
                    + dev.offheap.cli.Folders.whyNotCreated(logs, e), e);
        }
        try {
            Files.delete(Files.createTempFile(dir, ".offheap-compare-", ".tmp"));
            Files.delete(Files.createTempFile(logs, ".offheap-compare-", ".tmp"));
        } catch (IOException e) {
            throw new CommandException("cannot write to the output folder " + dir + ": " + e, e);
        }
    }

    /** Creates or completes the database before any variant runs, so no variant's time includes filling it. */
    private static String prepareStore(CompareOptions o, PrintStream out) throws CommandException {
        if (o.loader() == Workload.Loader.MEMORY) {
            return "in-memory loader, " + Durations.format(o.latency()) + " per load (at least: the thread parks)";
        }
        long offers = o.keys() != 0 ? o.keys() : 2L * o.maxEntries().stream().mapToInt(Integer::intValue).max().orElse(1);
        try (H2OfferStore s = H2OfferStore.open(o.db(), offers, o.valueSizes().getFirst(), 1,
                m -> out.println("offheap compare: " + m))) {
            return s.describe() + " (" + String.format(Locale.ROOT, "%,d", offers) + " offers of "
                    + Offers.TEXT_BYTES + " bytes of text, expanded to the item size; each variant JVM reads every offer 3 times"
                    + " before its warmup, so that H2's page cache is full)";
        } catch (IllegalStateException e) {
            throw new CommandException(e.getMessage(), e);
        } catch (RuntimeException e) {
            // H2 failing otherwise: a message and exit code 1, not a stack trace
            throw new CommandException("cannot prepare the offer database in " + o.db() + ": " + e, e);
        }
    }

    /** One launcher per setting: every variant of a setting gets the same heap. */
    private VariantLauncher launcher(CompareOptions o, int size, int entries) {
        return new VariantLauncher(o.heapFor(size, entries), o.collector(), o.timeout(), extraJvmOptions);
    }

    /**
     * Refuses a run whose variant JVMs would need more memory than the machine has: every variant JVM takes its
     * heap at start (-Xms as -Xmx), so each would fail to start or swap, and the run would show every variant
     * failed after the database was built, instead of saying what to change. An off-heap variant needs its
     * cache's native memory on top of its heap ({@link Variant#nativeBytes(int, int, int)}): one whose heap fits
     * but not with its cache would be killed mid-run, once its cache had filled. The variants run one at a time,
     * so each must fit alone.
     *
     * @param o the options
     * @param machineBytes the memory the variant JVMs may use (the machine's, or its container's limit), in bytes,
     *                     or a negative number when unknown (nothing checked)
     * @throws UsageException naming the first setting whose heap does not fit, or the first variant and setting
     *                        whose heap and native memory together do not, with each number and the limit
     */
    static void checkHeapsFit(CompareOptions o, long machineBytes) throws UsageException {
        if (machineBytes < 0) {
            return;
        }
        String machine = String.format(Locale.ROOT, "%.1f GiB", machineBytes / (double) (1L << 30));
        for (int size : o.valueSizes()) {
            for (int entries : o.maxEntries()) {
                long heap = o.heapFor(size, entries);
                if (heap > machineBytes) {
                    throw new UsageException(o.heap() == 0
                            ? String.format(Locale.ROOT, "--heap auto gives the setting %,d B x %,d entries -Xmx%s"
                                    + " (1.5 x its values + 256 MiB), more than this machine's %s of memory: choose"
                                    + " smaller --value-size or --max-entries, or a --heap that fits", size, entries,
                                    VariantLauncher.heapOption(heap), machine)
                            : String.format(Locale.ROOT, "--heap %s is more than this machine's %s of memory: every"
                                    + " variant JVM takes its heap at start", VariantLauncher.heapOption(heap), machine));
                }
                for (Variant v : o.variants()) {
                    long buffers = v.loadBufferBytes(size, o.threads());
                    long off = v.nativeBytes(entries, size, o.threads());
                    if (heap + off > machineBytes) {
                        String total = ByteSize.format(heap + off);
                        String limit = machine;
                        if (total.equals(limit)) {
                            // rounded alike, "1.5 GiB in all, more than 1.5 GiB" would not say why it does not fit
                            total = String.format(Locale.ROOT, "%,d bytes", heap + off);
                            limit = String.format(Locale.ROOT, "%,d bytes", machineBytes);
                        }
                        String parts = "its cache's capacity of " + ByteSize.format(off - buffers) + (buffers == 0 ? ""
                                : String.format(Locale.ROOT, " and %d request %s of %s", o.threads(), o.threads() == 1
                                        ? "thread's load buffer" : "threads' load buffers", ByteSize.format(buffers)));
                        throw new UsageException(String.format(Locale.ROOT, "the %s variant at %,d B x %,d entries"
                                + " needs -Xmx%s of heap and %s of native memory (%s), %s in all, more than this"
                                + " machine's %s of memory: choose smaller --value-size or --max-entries, or a smaller"
                                + " --heap", v.label(), size, entries, VariantLauncher.heapOption(heap),
                                ByteSize.format(off), parts, total, limit));
                    }
                }
            }
        }
    }

    /** @return the heap of the run for the first line: one size, or the per-setting range of --heap auto */
    static String heapSummary(CompareOptions o) {
        long min = Long.MAX_VALUE;
        long max = 0;
        for (int size : o.valueSizes()) {
            for (int entries : o.maxEntries()) {
                min = Math.min(min, o.heapFor(size, entries));
                max = Math.max(max, o.heapFor(size, entries));
            }
        }
        return min == max ? "-Xmx" + VariantLauncher.heapOption(max)
                : "-Xmx" + VariantLauncher.heapOption(min) + " to -Xmx" + VariantLauncher.heapOption(max)
                        + " (per setting, the same for its variants)";
    }

    private static String fileName(Workload w) {
        return w.valueSize() + "-" + w.maxEntries() + "-" + w.variant().label();
    }

    private static String quoted(List<String> argv) {
        List<String> parts = new ArrayList<>();
        for (String a : argv) {
            parts.add(a.matches("[A-Za-z0-9_./=,:@%+-]+") ? a : "'" + a.replace("'", "'\\''") + "'");
        }
        return String.join(" ", parts);
    }

    /** Prints a variant's progress on its line: the phase when it starts, then every tenth of it. */
    private static final class Progress {
        private final PrintStream out;
        private String phase = "";
        private int tenths = -1;

        Progress(PrintStream out) {
            this.out = out;
        }

        synchronized void update(String newPhase, double fraction) {
            if (newPhase.equals("done")) {
                return;
            }
            if (!newPhase.equals(phase)) {
                phase = newPhase;
                tenths = -1;
                out.print(" " + newPhase);
            }
            int t = (int) Math.floor(fraction * 10);
            if (t > tenths && t > 0) {
                tenths = t;
                out.print(" " + t * 10 + "%");
                out.flush();
            }
        }
    }
}
