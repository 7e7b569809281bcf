package dev.offheap.cli.compare;

import dev.offheap.cli.Counts;
import dev.offheap.cli.bench.RunInfo;
import dev.offheap.memory.ByteSize;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;

/**
 * The results of a compare run as the seed's table (printed), a markdown report and a JSON document.
 * Immutable.
 *
 * @param options the run's options
 * @param run where and how the run happened
 * @param storeDescription what the misses loaded from
 * @param results one per variant and setting, in run order
 * @param charts the chart files' names, relative to the report
 */
public record CompareReport(CompareOptions options, RunInfo run, String storeDescription,
        List<VariantResult> results, List<String> charts) {

    /** The seed's table for 200,000-byte items, for the report: variant, GC cycles, GC time (s), median (ms), rps. */
    static final String SEED_TABLE = """
            | Cached item size | Variant | GC cycles | GC time | Request time (median) | Throughput |
            |---|---|---|---|---|---|
            | 100,000 B | on-heap (Caffeine) | 40 | 0.212 s | 171 ms | 83.2 rps |
            | 100,000 B | off-heap (OHC) | 13 | 0.108 s | 179 ms | 78.1 rps |
            | 200,000 B | on-heap (Caffeine) | 84 | 0.453 s | 396 ms | 38.2 rps |
            | 200,000 B | off-heap (OHC) | 19 | 0.182 s | 355 ms | 40.2 rps |
            | 300,000 B | on-heap (Caffeine) | 114 | 0.6 s | 543 ms | 27.3 rps |
            | 300,000 B | off-heap (OHC) | 27 | 0.185 s | 528 ms | 27.9 rps |
            """;

    /** @return the seed's columns, one line per variant and setting, as printed at the end of a run */
    public String table() {
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"item size", "entries", "variant", "GC cycles", "GC time", "GC CPU", "p50", "p99",
            "throughput", "heap peak", "native"});
        for (VariantResult r : results) {
            if (!r.ok()) {
                rows.add(new String[] {bytes(r.valueSize()), group(r.maxEntries()), r.variant(),
                    "FAILED: " + r.failure()});
                continue;
            }
            rows.add(new String[] {bytes(r.valueSize()), group(r.maxEntries()), r.variant(),
                Long.toString(r.gcCycles()), seconds(r.gcTimeMillis() / 1e3), cpuSeconds(r.gcCpuSeconds()),
                latency(r.p50Micros()),
                latency(r.p99Micros()), rate(r.throughput()), ByteSize.format(r.heapPeakBytes()),
                ByteSize.format(r.cacheNativeBytes())});
        }
        int columns = rows.getFirst().length;
        int[] width = new int[columns];
        for (String[] row : rows) {
            if (row.length == columns) {
                for (int i = 0; i < columns; i++) {
                    width[i] = Math.max(width[i], row[i].length());
                }
            }
        }
        StringBuilder sb = new StringBuilder();
        for (String[] row : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < row.length; i++) {
                boolean left = i == 2 || row.length != columns && i == row.length - 1;
                String cell = row[i];
                String pad = " ".repeat(Math.max(0, width[i] - cell.length()));
                line.append(i == 0 ? "" : "  ").append(left ? cell + pad : pad + cell);
            }
            sb.append(line.toString().stripTrailing()).append('\n');
        }
        return sb.toString();
    }

    /** @return a setting's max entries with its noun: {@code 5,000 entries}, {@code 1 entry} */
    private static String entries(int maxEntries) {
        return Counts.of(maxEntries, "entry", "entries");
    }

    /** @return ratio lines, one per setting and off-heap variant: how it compares to on-heap */
    public List<String> ratioLines() {
        return perComparison((b, r) -> String.format(Locale.ROOT, "%s B, %s, %s vs on-heap: GC cycles %s, GC time "
                + "%s, GC CPU %s, p99 %s, throughput %s%s", group(r.valueSize()), entries(r.maxEntries()), r.variant(),
                fewerCycles(b.gcCycles(), r.gcCycles()), fewer(b.gcTimeMillis(), r.gcTimeMillis(), ms -> seconds(ms / 1e3)),
                fewer(b.gcCpuSeconds(), r.gcCpuSeconds(), CompareReport::cpuSeconds),
                times(r.p99Micros(), b.p99Micros()), times(r.throughput(), b.throughput()), caveat(b, r)));
    }

    /** One line per off-heap result that has an on-heap result at its setting: {@code line(onHeap, offHeap)}. */
    private List<String> perComparison(BiFunction<VariantResult, VariantResult, String> line) {
        List<String> lines = new ArrayList<>();
        for (VariantResult r : results) {
            if (r.variant().equals(Variant.ON_HEAP.label()) || !r.ok()) {
                continue;
            }
            baseline(r).ifPresent(b -> lines.add(line.apply(b, r)));
        }
        return lines;
    }

    /** GC time at least this many times lower than on-heap's is a gain worth going off-heap for. */
    static final double GC_GAIN = 2.0;
    /** Throughput of at least this share of on-heap's counts as kept. */
    static final double THROUGHPUT_KEPT = 0.95;
    /** A p99 of at most this multiple of on-heap's counts as kept. */
    static final double P99_KEPT = 1.10;
    /** An open loop's variant that served less than this share of the scheduled rate fell behind it. */
    static final double KEPT_UP = 0.95;

    /**
     * The answer to "does off-heap pay here?", one line per setting and off-heap variant, by fixed rules:
     * it pays when its GC time is at least {@value #GC_GAIN}x lower than on-heap's, its throughput at
     * least {@value #THROUGHPUT_KEPT}x on-heap's and its p99 at most {@value #P99_KEPT}x; with the GC gain
     * but not the rest, the line says what it costs (and, when p99 is the cost, whether p99.9 goes the other
     * way); without the GC gain it does not pay. A variant that failed gets a line saying so ("no verdict"), and
     * one that ran where on-heap failed a line saying that and what it measured ("no comparison"); where on-heap
     * was not run at all there is nothing to judge by and no line ({@link #noVerdictLine()} says so instead).
     *
     * @return the verdict lines, e.g. {@code 200,000 B x 5,000 entries, off-heap: pays (62x less GC time, ...)}
     */
    public List<String> verdictLines() {
        List<String> lines = new ArrayList<>();
        for (VariantResult r : results) {
            if (r.variant().equals(Variant.ON_HEAP.label())) {
                continue;
            }
            String setting = group(r.valueSize()) + " B x " + entries(r.maxEntries()) + ", " + r.variant() + ": ";
            Optional<VariantResult> onHeap = onHeapAt(r);
            if (!r.ok()) {
                // a failed variant is in the table; said here too, a setting's verdicts would otherwise just end
                lines.add(setting + "no verdict: it failed (" + r.failure() + ")");
            } else if (onHeap.isPresent() && onHeap.get().ok()) {
                VariantResult base = onHeap.get();
                lines.add(setting + verdict(base, r) + (caveat(base, r).isEmpty() ? "" : "; NOISY (see the ratios)"));
            } else if (onHeap.isPresent()) {
                // nothing to compare with; but a variant that ran where on-heap did not is the answer a user needs
                // most (on-heap out of memory at this heap size), so the line says what it did instead
                lines.add(setting + "no comparison: on-heap failed (" + onHeap.get().failure() + "), " + r.variant()
                        + " ran (GC time " + seconds(r.gcTimeMillis() / 1e3) + ", p99 " + latency(r.p99Micros())
                        + ", throughput " + rate(r.throughput()) + ")");
            }
        }
        return lines;
    }

    /**
     * Why there are no ratio and no verdict lines at all, where the variants run leave nothing to compare: both
     * compare each off-heap variant with on-heap at the same setting, its baseline, so a run without on-heap, or
     * with on-heap alone, would otherwise end after the table without a word.
     *
     * @return the line, naming the {@code --variants} to give; empty when on-heap and another variant were run
     */
    public Optional<String> noVerdictLine() {
        List<Variant> variants = options.variants();
        if (!variants.contains(Variant.ON_HEAP)) {
            return Optional.of("no ratios and no verdict: they compare each variant with on-heap, their baseline, at"
                    + " the same setting, and --variants did not name on-heap (add it: --variants on-heap,"
                    + String.join(",", variants.stream().map(Variant::label).toList()) + ")");
        }
        if (variants.size() == 1) {
            return Optional.of("no ratios and no verdict: they compare each off-heap variant with on-heap, and"
                    + " --variants named only on-heap (add one: --variants on-heap," + Variant.OFF_HEAP.label() + ")");
        }
        return Optional.empty();
    }

    static String verdict(VariantResult base, VariantResult r) {
        double throughput = r.throughput() / base.throughput();
        double p99 = r.p99Micros() / base.p99Micros();
        boolean gcGain = base.gcTimeMillis() > 0 && (r.gcTimeMillis() == 0 || base.gcTimeMillis() / r.gcTimeMillis() >= GC_GAIN);
        if (!gcGain) {
            String gcTime = base.gcTimeMillis() == 0 ? "no lower than"
                    : r.gcTimeMillis() <= base.gcTimeMillis() ? "only " + missed(base.gcTimeMillis() / r.gcTimeMillis(),
                    GC_GAIN, true)
                    + " lower than" : factor(r.gcTimeMillis() / base.gcTimeMillis()) + " higher than";
            // ZGC's counted beans are its cycles, whose time is how long they ran beside the application, not pauses
            String share = base.collectors().contains("ZGC") ? "on-heap's concurrent ZGC cycles ran for %.0f%% of the run"
                    : "on-heap spent %.0f%% of the run in GC pauses";
            return String.format(Locale.ROOT, "does not pay: GC time %s on-heap's (" + share + "), throughput %s, p99 %s",
                    gcTime, 100 * base.gcTimeMillis() / 1e3 / base.seconds(), factor(throughput), factor(p99));
        }
        List<String> gains = new ArrayList<>();
        gains.add(r.gcTimeMillis() == 0 ? "no GC time at all, against on-heap's " + seconds(base.gcTimeMillis() / 1e3)
                : factor(base.gcTimeMillis() / r.gcTimeMillis()) + " less GC time");
        if (throughput >= 1.05) {
            gains.add(factor(throughput) + " the throughput");
        }
        if (p99 <= 0.9) {
            gains.add("p99 " + factor(p99) + " on-heap's");
        }
        List<String> costs = new ArrayList<>();
        if (throughput < THROUGHPUT_KEPT) {
            costs.add("throughput (" + missed(throughput, THROUGHPUT_KEPT, true) + " on-heap's)");
        }
        if (p99 > P99_KEPT) {
            // a closed-loop load leaves on-heap's pauses to the slowest few requests: at 100 KB, on-heap's p99
            // was 0.3-0.7 ms but its p99.9 39 ms, off-heap's 2 ms and 8 ms; a p99 alone would hide that
            double p999 = base.p999Micros() > 0 ? r.p999Micros() / base.p999Micros() : Double.NaN;
            costs.add("latency (p99 " + missed(p99, P99_KEPT, false) + " on-heap's" + (p999 <= 1 / P99_KEPT
                    ? "; its p99.9 is " + factor(p999) + " on-heap's, where on-heap's GC pauses land" : "") + ")");
        }
        return costs.isEmpty() ? "pays (" + String.join(", ", gains) + ")"
                : "pays for the collector (" + String.join(", ", gains) + ") but costs " + String.join(" and ", costs);
    }

    /**
     * {@link #factor} of a ratio that misses a rule's bound. Rounded to the nearest, a ratio just short of the
     * bound reads as the bound itself (1.996 against "at least 2x" as "2.00x"), the value the rule accepts; it
     * is then rounded toward failing instead (1.99x).
     *
     * @param ratio the ratio, on the failing side of the bound
     * @param bound the rule's bound
     * @param higherPasses whether the rule asks for at least the bound (else at most)
     * @return the ratio as {@link #factor} writes it, never the bound's text
     */
    static String missed(double ratio, double bound, boolean higherPasses) {
        String text = factor(ratio);
        if (!text.equals(factor(bound)) || Double.isNaN(ratio) || Double.isInfinite(ratio)) {
            return text;
        }
        return new java.math.BigDecimal(ratio).setScale(2, higherPasses ? java.math.RoundingMode.FLOOR
                : java.math.RoundingMode.CEILING).toPlainString() + "x";
    }

    /**
     * @return a ratio as "2.83x" below 10, as the ratio lines write it, and "62x" from 10 on; one above 0 and
     *         below 0.01 with two significant digits ("0.0015x"), which two decimals wrote as "0.00x", as if
     *         the variant's number had been 0
     */
    static String factor(double ratio) {
        if (ratio > 0 && ratio < 0.01) {
            return new java.math.BigDecimal(ratio).round(new java.math.MathContext(2)).stripTrailingZeros()
                    .toPlainString() + "x";
        }
        return String.format(Locale.ROOT, ratio < 10 ? "%.2fx" : "%.0fx", ratio);
    }

    /**
     * The run-to-run caveat of one ratio: empty when both measured phases had the cores to themselves, else
     * how much CPU other processes took in each and which of the ratios that makes unreliable.
     *
     * @param base the on-heap result
     * @param r the off-heap result
     * @return "" or a sentence fragment starting with "; "
     */
    static String caveat(VariantResult base, VariantResult r) {
        double b = base.othersCpuShare();
        double v = r.othersCpuShare();
        boolean busyBase = !Double.isNaN(b) && b > BUSY_SHARE;
        boolean busyVariant = !Double.isNaN(v) && v > BUSY_SHARE;
        if (!busyBase && !busyVariant) {
            return "";
        }
        return String.format(Locale.ROOT, "; NOISY: other processes used %s (on-heap) and %s (%s) of the CPU: "
                + "GC time, p99, throughput and on-heap's GC cycles may differ by over 10%% in another run; GC CPU is "
                + "steadier", percent(b), percent(v), r.variant());
    }

    private static String percent(double share) {
        return Double.isNaN(share) ? "n/a" : String.format(Locale.ROOT, "%.0f%%", 100 * share);
    }

    /** Other processes' share of the CPU above which the report says the machine was busy. */
    static final double BUSY_SHARE = 0.10;

    /** @return whether other processes used more than {@value #BUSY_SHARE} of the CPU in any measured phase */
    public boolean busy() {
        return results.stream().filter(VariantResult::ok).anyMatch(r -> r.othersCpuShare() > BUSY_SHARE);
    }

    /** @return the on-heap result that ran at {@code r}'s setting, if one did */
    private Optional<VariantResult> baseline(VariantResult r) {
        return onHeapAt(r).filter(VariantResult::ok);
    }

    /** @return the on-heap result at {@code r}'s setting, whether it ran or failed; empty if on-heap was not run */
    private Optional<VariantResult> onHeapAt(VariantResult r) {
        return results.stream().filter(b -> b.variant().equals(Variant.ON_HEAP.label())
                && b.valueSize() == r.valueSize() && b.maxEntries() == r.maxEntries()).findFirst();
    }

    /**
     * @return for an open loop, a line per variant and setting that served less than {@value #KEPT_UP} of the
     *         scheduled rate; none for a closed loop
     */
    List<String> fellBehindLines() {
        List<String> lines = new ArrayList<>();
        if (options.rate() == 0) {
            return lines;
        }
        for (VariantResult r : results) {
            if (r.ok() && r.throughput() < KEPT_UP * options.rate()) {
                lines.add(String.format(Locale.ROOT, "%s B x %s, %s: %s of the %s scheduled", group(r.valueSize()),
                        entries(r.maxEntries()), r.variant(), rate(r.throughput()), rate(options.rate())));
            }
        }
        return lines;
    }

    /** @return the markdown report */
    public String markdown() {
        StringBuilder sb = new StringBuilder();
        sb.append("# offheap compare: on-heap against off-heap caches\n\n");
        sb.append("The seed's experiment (an offer service with a cache in front of a store, driven by ")
                .append(Counts.of(options.threads(), "thread")).append("): each variant ran in its own JVM with the same heap ")
                .append("and collector. How the numbers are taken: `docs/compare.md`.\n\n");
        sb.append("## Run\n\n");
        sb.append("| | |\n|---|---|\n");
        // a path's '|' (the command line's --db and --out, the store's database) would split its row's cell
        sb.append("| command | `").append(escape(run.command())).append("` |\n");
        sb.append("| date | ").append(run.date()).append(" |\n");
        sb.append("| machine | ").append(run.cpu()).append(", ").append(run.cores()).append(" cores, ")
                .append(run.memory()).append(", ").append(run.os()).append(" |\n");
        sb.append("| JDK | ").append(run.jdk()).append(" |\n");
        String heaps = CompareCommand.heapSummary(options);
        sb.append("| JVM per variant | `").append(heaps.contains(" to ") ? "-Xmx/-Xms per setting (heap column below)"
                        : heaps + " -Xms" + heaps.substring("-Xmx".length())).append(' ')
                .append(options.collector().flag()).append(" --enable-native-access=ALL-UNNAMED")
                .append(" -XX:+ExitOnOutOfMemoryError").append(options.nmt() ? " -XX:NativeMemoryTracking=summary" : "")
                .append("`; OHC also `").append(String.join(" ", Variant.OHC.jvmOptions())).append("` |\n");
        sb.append("| workload | ").append(Counts.of(options.threads(), "thread")).append("; ")
                .append(options.duration() != null ? "measured for " + Durations.format(options.duration())
                        : Counts.of(options.requests(), "measured request"))
                .append(" after ").append(options.warmupRequests() == CompareOptions.AUTO
                        ? CompareOptions.WARMUP_PER_ENTRY + " x max entries warmup requests"
                        : Counts.of(options.warmupRequests(), "warmup request"))
                .append("; ids uniformly random over ")
                .append(options.keys() != 0 ? Counts.of(options.keys(), "offer")
                        : "twice the max entries").append(" (seed ").append(options.seed()).append("); ")
                .append(options.rate() == 0 ? "closed loop: each thread sends its next request when the last returns"
                        : String.format(Locale.ROOT, "open loop: %,d requests/s scheduled, each timed from its scheduled "
                                + "start", options.rate())).append(" |\n");
        sb.append("| store | ").append(escape(storeDescription)).append(" |\n");
        double maxOthers = results.stream().filter(VariantResult::ok).mapToDouble(VariantResult::othersCpuShare)
                .filter(d -> !Double.isNaN(d)).max().orElse(Double.NaN);
        if (!Double.isNaN(maxOthers)) {
            sb.append(String.format(Locale.ROOT, "| other processes | used up to %.0f%% of the machine's %d cores during "
                    + "the measured phases |%n", 100 * maxOthers, run.cores()));
        }
        sb.append('\n');
        if (busy()) {
            sb.append("**The machine was busy**: other processes competed for the cores during the run, so the times ")
                    .append("(GC time, latency, throughput) are noisy, and G1 sizes its young generation from the pause ")
                    .append("times it sees, so even the cycle counts of a variant that keeps much on the heap move between ")
                    .append("runs. Compare variants within one run, or rerun on a quiet machine.\n\n");
        }

        sb.append("## Results\n\n");
        sb.append("| item size | max entries | variant | GC cycles | GC time | GC CPU | p50 | p99 | throughput | heap peak "
                + "| native |\n");
        sb.append("|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (VariantResult r : results) {
            if (!r.ok()) {
                sb.append("| ").append(group(r.valueSize())).append(" B | ").append(group(r.maxEntries())).append(" | ")
                        .append(r.variant()).append(" | **failed**: ").append(escape(r.failure()))
                        .append(" | | | | | | | |\n");
                continue;
            }
            sb.append("| ").append(group(r.valueSize())).append(" B | ").append(group(r.maxEntries())).append(" | ")
                    .append(r.variant()).append(" | ").append(r.gcCycles()).append(" | ")
                    .append(seconds(r.gcTimeMillis() / 1e3)).append(" | ").append(cpuSeconds(r.gcCpuSeconds()))
                    .append(" | ").append(latency(r.p50Micros())).append(" | ")
                    .append(latency(r.p99Micros())).append(" | ").append(rate(r.throughput())).append(" | ")
                    .append(ByteSize.format(r.heapPeakBytes())).append(" | ").append(ByteSize.format(r.cacheNativeBytes()))
                    .append(" |\n");
        }
        List<String> behind = fellBehindLines();
        if (!behind.isEmpty()) {
            sb.append("\nBelow the scheduled rate (an open loop's latencies then include the growing backlog of requests ")
                    .append("that waited to start; rerun at a rate every variant sustains to compare their latencies):\n\n");
            behind.forEach(l -> sb.append("- ").append(l).append('\n'));
        }
        List<String> ratios = ratioLines();
        if (!ratios.isEmpty()) {
            sb.append("\nAgainst on-heap at the same setting (\"fewer\": on-heap's count divided by the variant's; ")
                    .append("p99 and throughput: the variant's divided by on-heap's; a ratio marked NOISY was measured ")
                    .append("while other processes used more than ").append(Math.round(100 * BUSY_SHARE))
                    .append("% of the CPU):\n\n");
            ratios.forEach(l -> sb.append("- ").append(l).append('\n'));
        }
        List<String> verdicts = verdictLines();
        if (!verdicts.isEmpty()) {
            sb.append("\n**Does off-heap pay?** It does where GC time is at least ").append(fmt(GC_GAIN))
                    .append("x lower than on-heap's with throughput at least ").append(THROUGHPUT_KEPT)
                    .append("x and p99 at most ").append(P99_KEPT).append("x of on-heap's:\n\n");
            verdicts.forEach(l -> sb.append("- ").append(l).append('\n'));
        }

        noVerdictLine().ifPresent(l -> sb.append('\n').append(l).append('\n'));

        sb.append("\n## All metrics\n\n");
        sb.append("| item size | max entries | variant | heap | warmup | requests | seconds | hit ratio | entries | GC pauses "
                + "| pause total "
                + "| longest pause | heap after GC (max) | heap live at end | p99.9 | max | CPU | GC CPU | NMT committed "
                + "| RSS peak | JVM life | other processes' CPU |\n");
        sb.append("|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:"
                + "|---:|\n");
        for (VariantResult r : results) {
            if (!r.ok()) {
                continue;
            }
            sb.append("| ").append(group(r.valueSize())).append(" B | ").append(group(r.maxEntries())).append(" | ")
                    .append(r.variant()).append(" | ")
                    .append(ByteSize.format(options.heapFor(r.valueSize(), r.maxEntries()))).append(" | ")
                    .append(group(options.warmupFor(r.maxEntries()))).append(" | ")
                    .append(group(r.requests())).append(" | ")
                    .append(String.format(Locale.ROOT, "%.1f", r.seconds())).append(" | ")
                    .append(String.format(Locale.ROOT, "%.1f%%", 100 * r.hitRatio())).append(" | ")
                    .append(group(r.entries())).append(" | ").append(r.pauseCount() < 0 ? "n/a" : r.pauseCount())
                    .append(" | ").append(millis(r.pauseTotalMillis())).append(" | ").append(millis(r.pauseMaxMillis()))
                    .append(" | ").append(optionalBytes(r.heapAfterGcBytes())).append(" | ")
                    .append(ByteSize.format(r.heapLiveBytes())).append(" | ").append(latency(r.p999Micros()))
                    .append(" | ").append(latency(r.maxMicros())).append(" | ")
                    .append(String.format(Locale.ROOT, "%.1f s", r.cpuSeconds())).append(" | ")
                    .append(Double.isNaN(r.gcCpuSeconds()) ? "n/a" : String.format(Locale.ROOT, "%.2f s", r.gcCpuSeconds()))
                    .append(" | ").append(r.nmtCommittedBytes() < 0 ? "off" : ByteSize.format(r.nmtCommittedBytes())).append(" | ")
                    .append(optionalBytes(r.rssPeakBytes())).append(" | ")
                    .append(String.format(Locale.ROOT, "%.1f s", r.jvmSeconds())).append(" | ")
                    .append(Double.isNaN(r.othersCpuShare()) ? "n/a"
                            : String.format(Locale.ROOT, "%.0f%%", 100 * r.othersCpuShare()))
                    .append(" |\n");
        }
        sb.append("\nCaches: ");
        List<String> seen = new ArrayList<>();
        for (VariantResult r : results) {
            if (r.ok() && !seen.contains(r.variant())) {
                seen.add(r.variant());
                sb.append(seen.size() > 1 ? "; " : "").append(r.variant()).append(": ").append(r.cache());
            }
        }
        String collectors = results.stream().filter(VariantResult::ok).map(VariantResult::collectors).findFirst()
                .orElse("");
        sb.append(".\nGC cycles and time count the beans: ").append(collectors).append(".\n");

        if (!charts.isEmpty()) {
            sb.append("\n## Charts\n\n");
            charts.forEach(c -> sb.append("![").append(c).append("](").append(c).append(")\n"));
        }
        sb.append("\n## The seed's numbers\n\n")
                .append("From the seed (a laptop, Spring service, jMeter, OHC as the off-heap cache, 10 threads x 1,000 ")
                .append("requests, 5,000 max entries); its request times include its HTTP stack and store:\n\n")
                .append(SEED_TABLE);
        return sb.toString();
    }

    /** @return the JSON document: the run, the options and every result */
    public Map<String, Object> json() {
        Map<String, Object> doc = new LinkedHashMap<>();
        Map<String, Object> runMap = new LinkedHashMap<>();
        runMap.put("command", run.command());
        runMap.put("date", run.date());
        runMap.put("cpu", run.cpu());
        runMap.put("cores", run.cores());
        runMap.put("memory", run.memory());
        runMap.put("os", run.os());
        runMap.put("jdk", run.jdk());
        doc.put("run", runMap);
        Map<String, Object> settings = new LinkedHashMap<>();
        settings.put("valueSizes", options.valueSizes());
        settings.put("maxEntries", options.maxEntries());
        settings.put("variants", options.variants().stream().map(Variant::label).toList());
        settings.put("threads", options.threads());
        settings.put("requests", options.requests());
        settings.put("durationSeconds", options.duration() == null ? null : options.duration().toNanos() / 1e9);
        settings.put("rate", options.rate() == 0 ? "closed loop" : options.rate());
        settings.put("warmupRequests", options.warmupRequests() == CompareOptions.AUTO
                ? CompareOptions.WARMUP_PER_ENTRY + " x max entries" : options.warmupRequests());
        settings.put("keys", options.keys() == 0 ? "2 x max entries" : options.keys());
        settings.put("heap", options.heap() == 0 ? "auto: 1.5 x value size x max entries + 256 MiB, rounded up to "
                + "256 MiB, at least 512 MiB, per setting" : VariantLauncher.heapOption(options.heap()));
        settings.put("collector", options.collector().label());
        settings.put("loader", options.loader().label());
        settings.put("store", storeDescription);
        settings.put("seed", options.seed());
        settings.put("nmt", options.nmt());
        doc.put("settings", settings);
        doc.put("results", results.stream().map(r -> {
            Map<String, Object> m = new LinkedHashMap<>(r.toMap());
            m.put("heapBytes", options.heapFor(r.valueSize(), r.maxEntries()));
            m.put("warmupRequests", options.warmupFor(r.maxEntries()));
            return m;
        }).toList());
        return doc;
    }

    static String bytes(int n) {
        return group(n) + " B";
    }

    static String group(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }

    static String seconds(double s) {
        return Double.isNaN(s) ? "n/a" : String.format(Locale.ROOT, "%.3f s", s);
    }

    static String cpuSeconds(double s) {
        return Double.isNaN(s) ? "n/a" : String.format(Locale.ROOT, "%.2f s", s);
    }

    static String millis(double ms) {
        return Double.isNaN(ms) ? "n/a" : String.format(Locale.ROOT, "%.2f ms", ms);
    }

    /**
     * @param micros a latency in microseconds, or NaN
     * @return it to three significant digits below a millisecond ({@code 0.350 us}, {@code 3.60 us},
     *         {@code 42.3 us}, {@code 523 us}), in milliseconds from there ({@code 1.23 ms}), or n/a: whole
     *         microseconds showed a 0.35 us hit as "0 us"
     */
    static String latency(double micros) {
        if (Double.isNaN(micros)) {
            return "n/a";
        }
        if (micros >= 1000) {
            return String.format(Locale.ROOT, "%.2f ms", micros / 1000);
        }
        String pattern = micros < 1 ? "%.3f us" : micros < 10 ? "%.2f us" : micros < 100 ? "%.1f us" : "%.0f us";
        return String.format(Locale.ROOT, pattern, micros);
    }

    static String rate(double perSecond) {
        return Double.isNaN(perSecond) ? "n/a" : String.format(Locale.ROOT, "%,.0f rps", perSecond);
    }

    private static String optionalBytes(long bytes) {
        return bytes < 0 ? "n/a" : ByteSize.format(bytes);
    }

    /**
     * "5.2x fewer" when the variant's number is smaller, "1.3x more" when larger; with a zero, the numbers.
     *
     * @param base on-heap's number
     * @param variant the variant's number
     * @param format how the table writes the number, e.g. {@code 0.484 s}: a zero's other side is written so
     * @return the ratio's text
     */
    static String fewer(double base, double variant, java.util.function.DoubleFunction<String> format) {
        if (Double.isNaN(base) || Double.isNaN(variant)) {
            return "n/a";
        }
        if (variant == 0 || base == 0) {
            return base == variant ? "equal (0)" : variant == 0 ? "none (on-heap " + format.apply(base) + ")"
                    : format.apply(variant) + " (on-heap none)";
        }
        double ratio = base / variant;
        return ratio >= 1 ? String.format(Locale.ROOT, "%.2fx fewer", ratio)
                : String.format(Locale.ROOT, "%.2fx more", 1 / ratio);
    }

    /**
     * A count below this is too small to give a ratio to within 10%: one cycle more or fewer moves it by
     * more than that. The ratio line then says so, with the range one cycle either way gives.
     */
    static final long PRECISE_COUNT = 10;

    /**
     * {@link #fewer} for GC cycle counts, which are whole numbers: when the variant's count is below
     * {@value #PRECISE_COUNT}, the ratio is set as much by counting as by the workload (2 cycles against 3
     * is a 50% change), and the line gives the counts and the ratios one cycle more or fewer would give.
     */
    static String fewerCycles(long base, long variant) {
        String ratio = fewer(base, variant, CompareReport::fmt);
        if (base <= 0 || variant <= 0 || variant >= PRECISE_COUNT) {
            return ratio;
        }
        // the bounds as the ratio itself is written (direction and two decimals): rounded to whole numbers and
        // always as "fewer", 8 cycles against 5 ("1.60x more") gave "1x or 1x"
        String oneMore = fewer(base, variant + 1, CompareReport::fmt);
        String oneFewer = variant == 1 ? "none" : fewer(base, variant - 1, CompareReport::fmt);
        return String.format(Locale.ROOT, "%s (%d against %d: a count this small sets the ratio's precision; one cycle more "
                + "or fewer gives %s or %s)", ratio, variant, base, oneMore, oneFewer);
    }

    /** @return the variant's number divided by on-heap's, with two decimals ({@link #factor} below 0.01), or n/a */
    static String times(double variant, double base) {
        if (Double.isNaN(base) || Double.isNaN(variant) || base == 0) {
            return "n/a";
        }
        double ratio = variant / base;
        return ratio > 0 && ratio < 0.01 ? factor(ratio) : String.format(Locale.ROOT, "%.2fx", ratio);
    }

    private static String fmt(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : String.format(Locale.ROOT, "%.1f", d);
    }

    private static String escape(String s) {
        return s.replace("|", "\\|").replace("\n", " ");
    }
}
