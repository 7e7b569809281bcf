package dev.offheap.cli.bench;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The goal section of the cache suite's report: each goal of the off-heap cache, the numbers of this
 * run it is judged on, the target, and pass or fail. Every number comes from the JMH results alone, so
 * a report re-generated from committed JSON judges the same way.
 *
 * <p>The 100-byte case is the workloads with the smallest values in the results if they are small (at most
 * {@value #SMALL_VALUE_MAX_BYTES} bytes), the 100 KB case those with the largest if they are not (quick
 * and smoke runs use fewer keys than the committed run, with the same value sizes). A run of one workload
 * is judged on the goals of its value size only. Throughput against OHC is judged at every workload; a
 * workload of neither case is named below the table with the goals it is not judged on. Every value of
 * another parameter (the hit ratio's stream length, the footprint's capacity) is judged, each against the
 * references at the same parameters, and named in the row's case where the run has several.
 */
public final class CacheGoals implements Function<List<JmhResult>, String> {
    private static final String PACKAGE = "dev.offheap.bench.cache.";
    /** A copying get or put counts as bandwidth-bound at this share of a bare copy's bytes per second. */
    static final double BANDWIDTH_SHARE = 0.8;
    /** Values up to this size make a workload the small-value case; larger ones the large-value case. */
    static final long SMALL_VALUE_MAX_BYTES = 4096;

    @Override
    public String apply(List<JmhResult> results) {
        Goals g = new Goals(results);
        StringBuilder md = new StringBuilder();
        md.append("## Goals\n\n");
        md.append("Judged on this run only; quick and smoke runs measure too briefly, on fewer keys, to ")
                .append("settle a goal. OHC's throughput is the better of its LRU and W-TinyLFU variants. ")
                .append("Bandwidth-bound means at least ").append(pct(BANDWIDTH_SHARE))
                .append(" of the bare copy's bytes per second.\n\n");
        md.append("| goal | case | measured | target | result |\n|---|---|---|---|---|\n");
        g.throughputAgainstOhc();
        g.againstCaffeine();
        g.zeroCopyReads();
        g.bandwidth();
        g.gcTime();
        g.footprint();
        g.hitRatio();
        for (Row row : g.rows) {
            md.append("| ").append(row.goal).append(" | ").append(row.caseLabel).append(" | ").append(row.measured)
                    .append(" | ").append(row.target).append(" | ").append(row.verdict()).append(" |\n");
        }
        List<String> notJudged = g.notJudged();
        if (!notJudged.isEmpty()) {
            md.append('\n');
            notJudged.forEach(line -> md.append(line).append('\n'));
        }
        long failed = g.rows.stream().filter(r -> Boolean.FALSE.equals(r.pass)).count();
        long missing = g.rows.stream().filter(r -> r.pass == null).count();
        md.append('\n').append(g.rows.size() - failed - missing).append(" of ").append(g.rows.size())
                .append(" goals met");
        if (failed > 0) {
            md.append(", ").append(failed).append(" missed");
        }
        if (missing > 0) {
            md.append(", ").append(missing).append(" not measured in this run");
        }
        md.append(".\n");
        return md.toString();
    }

    private record Row(String goal, String caseLabel, String measured, String target, Boolean pass) {
        String verdict() {
            return pass == null ? "not measured" : pass ? "pass" : "**fail**";
        }
    }

    private static final class Goals {
        final List<JmhResult> results;
        final List<Row> rows = new ArrayList<>();
        /** Every workload of the run, smallest values first. */
        final List<String> workloads;
        /** The workloads of the 100-byte case: those of the smallest value size, if it is small. */
        final List<String> small;
        /** The workloads of the 100 KB case: those of the largest value size, if it is not small. */
        final List<String> large;

        Goals(List<JmhResult> results) {
            this.results = results;
            workloads = results.stream().map(r -> r.params().get("workload")).filter(Objects::nonNull)
                    .distinct().sorted(Comparator.comparingLong(Goals::valueBytes)).toList();
            OptionalLong smallBytes = workloads.stream().mapToLong(Goals::valueBytes)
                    .filter(b -> b <= SMALL_VALUE_MAX_BYTES).min();
            OptionalLong largeBytes = workloads.stream().mapToLong(Goals::valueBytes)
                    .filter(b -> b > SMALL_VALUE_MAX_BYTES).max();
            small = workloads.stream().filter(w -> smallBytes.isPresent() && valueBytes(w) == smallBytes.getAsLong())
                    .toList();
            large = workloads.stream().filter(w -> largeBytes.isPresent() && valueBytes(w) == largeBytes.getAsLong())
                    .toList();
        }

        /** One line per workload of neither case: judged on throughput only, and why. */
        List<String> notJudged() {
            List<String> lines = new ArrayList<>();
            for (String w : workloads) {
                if (small.contains(w) || large.contains(w)) {
                    continue;
                }
                String smallCase = small.isEmpty() ? null
                        : "the 100-byte goals are judged at the run's smallest value size ("
                                + bytesLabel(valueBytes(small.getFirst())) + ")";
                String largeCase = large.isEmpty() ? null : (smallCase == null
                        ? "the 100 KB goals are judged at the run's largest value size ("
                        : ", the 100 KB goals at its largest (") + bytesLabel(valueBytes(large.getFirst())) + ")";
                lines.add("Workload `" + w + "` (" + bytesLabel(valueBytes(w)) + " values) is judged on throughput "
                        + "against OHC only: " + (smallCase == null ? "" : smallCase)
                        + (largeCase == null ? "" : largeCase) + ".");
            }
            return lines;
        }

        static long valueBytes(String workload) {
            int x = workload.indexOf('x');
            try {
                return x < 0 ? 0 : Long.parseLong(workload.substring(x + 1));
            } catch (NumberFormatException e) {
                return 0;
            }
        }

        static String sizeLabel(String workload) {
            String keys = workload.substring(0, Math.max(0, workload.indexOf('x')));
            return bytesLabel(valueBytes(workload)) + " values, " + keys + " keys";
        }

        static String bytesLabel(long bytes) {
            return bytes >= 1000 && bytes % 1000 == 0 ? bytes / 1000 + " KB" : bytes + " B";
        }

        /**
         * The threads a class ran on at a workload, as JMH's results say. A class without results in this
         * run is taken to have run as the others did where they ran on a count other than their own
         * ({@code --threads} runs every class on the same count), else as its {@code @Threads} says (2 for
         * the two-thread classes). Where that differs from its own count, the class is named, since a
         * one-thread and a two-thread class then ran alike.
         */
        String threads(String simpleClass, String workload) {
            int declared = declaredThreads(simpleClass);
            List<JmhResult> ran = results.stream().filter(r -> r.className().equals(PACKAGE + simpleClass)).toList();
            int n = ran.stream().filter(r -> workload.equals(r.params().get("workload"))).findFirst()
                    .or(() -> ran.stream().findFirst())
                    .or(() -> results.stream().filter(r -> r.threads() != declaredThreads(r.className())).findFirst())
                    .map(JmhResult::threads).orElse(declared);
            String text = n + (n == 1 ? " thread" : " threads");
            return n == declared ? text : text + " (`" + simpleClass + "`)";
        }

        /** The threads a cache benchmark class runs on by its {@code @Threads}: 2 for the two-thread classes. */
        static int declaredThreads(String className) {
            return className.endsWith("TwoThreadsBenchmark") ? 2 : 1;
        }

        /** The results of one benchmark method, in result order. */
        List<JmhResult> all(String simpleClass, String method) {
            return results.stream()
                    .filter(r -> r.className().equals(PACKAGE + simpleClass) && r.method().equals(method)).toList();
        }

        /** The result of a benchmark method at exactly these parameters. */
        Optional<JmhResult> at(String simpleClass, String method, Map<String, String> params) {
            return all(simpleClass, method).stream().filter(r -> r.params().equals(params)).findFirst();
        }

        /**
         * The parameters of a result other than {@code except} that the class ran with several values of,
         * as {@code , name=value} each: what tells its rows apart. Empty where it ran with one value each.
         */
        String varying(String simpleClass, JmhResult r, String except) {
            StringBuilder label = new StringBuilder();
            r.params().forEach((name, value) -> {
                if (!name.equals(except) && results.stream().filter(o -> o.className().equals(PACKAGE + simpleClass))
                        .map(o -> o.params().get(name)).filter(Objects::nonNull).distinct().count() > 1) {
                    label.append(", ").append(name).append('=').append(value);
                }
            });
            return label.toString();
        }

        Optional<JmhResult> find(String simpleClass, String method, String param, String value) {
            return results.stream()
                    .filter(r -> r.className().equals(PACKAGE + simpleClass) && r.method().equals(method))
                    .filter(r -> param == null || value.equals(r.params().get(param)))
                    .findFirst();
        }

        /** The primary score, empty when the result is missing or JMH had no score for it (NaN). */
        OptionalDouble score(String simpleClass, String method, String workload) {
            // a NaN score is not measured: as a number it would poison the better of two OHC variants
            // (Math.max), make a ratio NaN and judge a bandwidth share of NaN a failure
            return find(simpleClass, method, "workload", workload).filter(r -> !Double.isNaN(r.score()))
                    .map(r -> OptionalDouble.of(r.score())).orElse(OptionalDouble.empty());
        }

        /**
         * The better of OHC's two variants.
         *
         * @param score the better score, empty when neither has one
         * @param missing the variant without a score when only one has one, else null
         */
        record Reference(OptionalDouble score, String missing) {
            static Reference of(OptionalDouble score) {
                return new Reference(score, null);
            }
        }

        Reference bestOhc(String simpleClass, String workload) {
            OptionalDouble lru = score(simpleClass, "ohcLru", workload);
            OptionalDouble lfu = score(simpleClass, "ohcTinyLfu", workload);
            if (lru.isEmpty() || lfu.isEmpty()) {
                return new Reference(lru.isEmpty() ? lfu : lru, lru.isEmpty() ? "OHC LRU" : "OHC W-TinyLFU");
            }
            return Reference.of(OptionalDouble.of(Math.max(lru.getAsDouble(), lfu.getAsDouble())));
        }

        void ratioRow(String goal, String caseLabel, OptionalDouble ours, OptionalDouble theirs, String theirName,
                double atLeast, String unit) {
            ratioRow(goal, caseLabel, ours, Reference.of(theirs), theirName, atLeast, unit);
        }

        /**
         * One row of {@code ours / theirs} against at least {@code atLeast}. Where one of the references
         * whose better counts is missing, the row can fail on the other but not pass: the missing one
         * might be the better.
         */
        void ratioRow(String goal, String caseLabel, OptionalDouble ours, Reference reference, String theirName,
                double atLeast, String unit) {
            OptionalDouble theirs = reference.score();
            if (ours.isEmpty() || theirs.isEmpty() || theirs.getAsDouble() <= 0) {
                rows.add(new Row(goal, caseLabel, "", "≥ " + BenchReport.ratio(atLeast) + "x " + theirName, null));
                return;
            }
            double ratio = ours.getAsDouble() / theirs.getAsDouble();
            // on the scores as JMH wrote them: their quotient as doubles may round below an exact bound
            boolean pass = Goal.compareQuotient(ours.getAsDouble(), theirs.getAsDouble(), atLeast) >= 0;
            rows.add(new Row(goal, caseLabel,
                    shortOf(BenchReport.ratio(ratio), BenchReport.ratio(atLeast), pass,
                            () -> BenchReport.ratio(ratio, RoundingMode.FLOOR)) + "x ("
                            + BenchReport.number(ours.getAsDouble()) + " vs "
                            + BenchReport.number(theirs.getAsDouble()) + " " + unit
                            + (reference.missing() == null ? "" : "; " + reference.missing() + " not measured") + ")",
                    "≥ " + BenchReport.ratio(atLeast) + "x " + theirName,
                    pass && reference.missing() != null ? null : pass));
        }

        void throughputAgainstOhc() {
            String[][] cases = {
                {"CacheGetBenchmark", "get", "offheapGet", "offheapRead"},
                {"CacheGetTwoThreadsBenchmark", "get", "offheapGet", "offheapRead"},
                {"CachePutBenchmark", "put", "offheapPut"},
                {"CachePutTwoThreadsBenchmark", "put", "offheapPut"},
                {"CacheMixBenchmark", "90/10 mix", "offheapGet", "offheapRead"},
                {"CacheMixTwoThreadsBenchmark", "90/10 mix", "offheapGet", "offheapRead"},
            };
            for (String workload : workloads) {
                for (String[] c : cases) {
                    for (int v = 2; v < c.length; v++) {
                        String label = c[1] + " (`" + c[v] + "`), " + sizeLabel(workload) + ", "
                                + threads(c[0], workload);
                        ratioRow("throughput ≥ 2x OHC", label, score(c[0], c[v], workload),
                                bestOhc(c[0], workload), "OHC", 2, "ops/s");
                    }
                }
            }
        }

        void againstCaffeine() {
            for (String w : small) {
                againstCaffeine("100-byte gets ≥ 0.5x Caffeine", "offheapGet", "CacheGetBenchmark",
                        "CacheGetTwoThreadsBenchmark", 0.5, w);
            }
            for (String w : small) {
                againstCaffeine("100-byte puts ≥ 1x Caffeine", "offheapPut", "CachePutBenchmark",
                        "CachePutTwoThreadsBenchmark", 1, w);
            }
        }

        /** One row per class (one and two threads): {@code method} against the same class's {@code caffeine}. */
        void againstCaffeine(String goal, String method, String oneThread, String twoThreads, double factor,
                String w) {
            for (String cls : List.of(oneThread, twoThreads)) {
                ratioRow(goal, "`" + method + "`, " + sizeLabel(w) + ", " + threads(cls, w), score(cls, method, w),
                        score(cls, "caffeine", w), "Caffeine", factor, "ops/s");
            }
        }

        void zeroCopyReads() {
            for (String w : large) {
                zeroCopyReads(w);
            }
        }

        void zeroCopyReads(String w) {
            for (String cls : List.of("CacheGetBenchmark", "CacheGetTwoThreadsBenchmark")) {
                ratioRow("100 KB zero-copy reads ≥ 10x OHC gets", "`offheapRead`, " + sizeLabel(w) + ", "
                        + threads(cls, w), score(cls, "offheapRead", w), bestOhc(cls, w), "OHC", 10, "ops/s");
            }
        }

        void bandwidth() {
            for (String w : large) {
                bandwidth(w);
            }
        }

        void bandwidth(String w) {
            double bytes = valueBytes(w);
            String cls = "CacheBandwidthBenchmark";
            bandwidthRow("copying gets bandwidth-bound", "`offheapGet` vs `segmentToArray` (a new array too), "
                    + sizeLabel(w), score(cls, "offheapGet", w), score(cls, "segmentToArray", w), bytes);
            bandwidthRow("copying gets bandwidth-bound", "`offheapReadCopy` vs `segmentCopyOut` (a reused array), "
                    + sizeLabel(w), score(cls, "offheapReadCopy", w), score(cls, "segmentCopyOut", w), bytes);
            bandwidthRow("puts bandwidth-bound", "`offheapPut` vs `segmentCopyIn`, " + sizeLabel(w),
                    score(cls, "offheapPut", w), score(cls, "segmentCopyIn", w), bytes);
        }

        void bandwidthRow(String goal, String caseLabel, OptionalDouble ours, OptionalDouble copy, double bytes) {
            String target = "≥ " + pct(BANDWIDTH_SHARE) + " of the copy's bytes/s";
            if (ours.isEmpty() || copy.isEmpty() || copy.getAsDouble() <= 0) {
                rows.add(new Row(goal, caseLabel, "", target, null));
                return;
            }
            double share = ours.getAsDouble() / copy.getAsDouble();
            boolean pass = Goal.compareQuotient(ours.getAsDouble(), copy.getAsDouble(), BANDWIDTH_SHARE) >= 0;
            String shown = shortOf(pct(share), pct(BANDWIDTH_SHARE), pass, () -> BigDecimal.valueOf(share)
                    .movePointRight(2).setScale(0, RoundingMode.FLOOR).toPlainString() + "%");
            rows.add(new Row(goal, caseLabel, gbps(ours.getAsDouble() * bytes) + " vs " + gbps(copy.getAsDouble() * bytes)
                    + " (" + shown + ")", target, pass));
        }

        void gcTime() {
            for (String w : large) {
                gcTime(w);
            }
        }

        void gcTime(String w) {
            for (String cls : List.of("CacheMixBenchmark", "CacheMixTwoThreadsBenchmark")) {
                String threads = threads(cls, w);
                Optional<JmhResult> caffeine = find(cls, "caffeine", "workload", w);
                for (String ours : List.of("offheapGet", "offheapRead")) {
                    Optional<JmhResult> mine = find(cls, ours, "workload", w);
                    String label = "90/10 mix, `" + ours + "`, " + sizeLabel(w) + ", " + threads;
                    String target = "≥ 5x lower than Caffeine";
                    if (caffeine.isEmpty() || mine.isEmpty() || gcTime(caffeine.get()).isEmpty()
                            || gcTime(mine.get()).isEmpty()) {
                        rows.add(new Row("GC time ≥ 5x lower than Caffeine", label, "", target, null));
                        continue;
                    }
                    double theirs = gcTime(caffeine.get()).getAsDouble();
                    double mineMs = gcTime(mine.get()).getAsDouble();
                    String measured = BenchReport.number(mineMs) + " ms in " + gcCount(mine.get()) + " vs Caffeine's "
                            + BenchReport.number(theirs) + " ms in " + gcCount(caffeine.get());
                    Boolean pass;
                    if (theirs <= 0 && mineMs <= 0) {
                        pass = null; // no collection on either side: the run was too short to tell
                        measured += " (no GC time to compare)";
                    } else {
                        // GC time of ours against none of Caffeine's cannot be 5x lower: a fail
                        pass = mineMs * 5 <= theirs;
                        if (mineMs > 0 && theirs > 0) {
                            double lower = theirs / mineMs;
                            measured += " (" + shortOf(BenchReport.ratio(lower), BenchReport.ratio(5), pass,
                                    () -> BenchReport.ratio(lower, RoundingMode.FLOOR)) + "x lower)";
                        }
                    }
                    rows.add(new Row("GC time ≥ 5x lower than Caffeine", label, measured, target, pass));
                }
            }
        }

        static OptionalDouble gc(JmhResult r, String metric) {
            JmhResult.Metric m = r.secondary().get(metric);
            return m == null || Double.isNaN(m.score()) ? OptionalDouble.empty() : OptionalDouble.of(m.score());
        }

        /**
         * The GC time in ms: JMH's GC profiler writes {@code gc.time} only for iterations in which a
         * collection ran, so a result with {@code gc.count} and no {@code gc.time} had none (0 ms).
         * Empty without the profiler's metrics.
         */
        static OptionalDouble gcTime(JmhResult r) {
            OptionalDouble time = gc(r, "gc.time");
            return time.isPresent() || gc(r, "gc.count").isEmpty() ? time : OptionalDouble.of(0);
        }

        static String gcCount(JmhResult r) {
            OptionalDouble count = gc(r, "gc.count");
            long n = count.isPresent() ? Math.round(count.getAsDouble()) : 0;
            return n + (n == 1 ? " collection" : " collections");
        }

        void footprint() {
            String cls = "CacheFootprintBenchmark";
            List<JmhResult> ours = all(cls, "offheap");
            String[][] measures = {
                {"accountedOverheadBytesPerEntry", "own accounting (`weightedSize`; OHC: `memUsed`)"},
                {"capacityOverheadBytesPerEntry", "capacity / entries kept (tables and sketch included; OHC's capacity leaves its tables out)"},
                {"nmtOverheadBytesPerEntry", "Native Memory Tracking, growth of its \"Other\" category (Unsafe and FFM allocations)"},
                {"rssOverheadBytesPerEntry", "resident set growth (malloc's own overhead included)"},
            };
            for (String[] m : measures) {
                if (ours.isEmpty()) {
                    rows.add(new Row("overhead per entry ≤ 32 B", "100 B values, 8 B keys, " + m[1], "", "≤ 32 B", null));
                }
                for (JmhResult r : ours) {
                    footprintRow(m, r, "100 B values, 8 B keys, " + m[1] + varying(cls, r, null),
                            at(cls, "ohcLru", r.params()));
                }
            }
        }

        /** One row of a measure of the footprint, OHC's at the same parameters beside it. */
        void footprintRow(String[] m, JmhResult ours, String label, Optional<JmhResult> ohc) {
            OptionalDouble mine = gc(ours, m[0]);
            if (mine.isEmpty()) {
                rows.add(new Row("overhead per entry ≤ 32 B", label, "", "≤ 32 B", null));
                return;
            }
            String theirs = ohc.map(r -> gc(r, m[0])).filter(OptionalDouble::isPresent)
                    .map(d -> "; OHC " + BenchReport.number(d.getAsDouble()) + " B").orElse("");
            if (m[0].startsWith("nmt") && mine.getAsDouble() < 0) {
                // less than the keys and values themselves: the memory lies outside what NMT counts
                // (regions the cache maps itself, see LargeRegions); the resident set still sees it
                rows.add(new Row("overhead per entry ≤ 32 B", label, "not seen by NMT ("
                        + BenchReport.number(mine.getAsDouble()) + " B: the cache maps its memory itself)" + theirs,
                        "≤ 32 B", null));
                return;
            }
            boolean pass = mine.getAsDouble() <= 32;
            rows.add(new Row("overhead per entry ≤ 32 B", label,
                    shortOf(BenchReport.number(mine.getAsDouble()), BenchReport.number(32), pass,
                            () -> BenchReport.number(mine.getAsDouble(), RoundingMode.CEILING)) + " B" + theirs,
                    "≤ 32 B", pass));
        }

        void hitRatio() {
            String cls = "HitRatioBenchmark";
            for (String stream : List.of("zipf", "scan")) {
                List<JmhResult> ours = all(cls, "offheapTinyLfu").stream()
                        .filter(r -> stream.equals(r.params().get("stream"))).toList();
                if (ours.isEmpty()) {
                    rows.add(new Row("hit ratio within 1 pp of Caffeine", stream + " stream, W-TinyLFU", "",
                            "≥ Caffeine − 1 pp", null));
                }
                for (JmhResult r : ours) {
                    hitRatioRow(cls, r, stream + " stream, W-TinyLFU" + varying(cls, r, "stream"));
                }
            }
        }

        /** One row of a W-TinyLFU result against Caffeine's and the others' at the same parameters. */
        void hitRatioRow(String cls, JmhResult ours, String label) {
            Optional<JmhResult> caffeine = at(cls, "caffeine", ours.params());
            if (caffeine.isEmpty() || gc(caffeine.get(), "hitRatioPercent").isEmpty()
                    || gc(ours, "hitRatioPercent").isEmpty()) {
                rows.add(new Row("hit ratio within 1 pp of Caffeine", label, "", "≥ Caffeine − 1 pp", null));
                return;
            }
            double theirs = gc(caffeine.get(), "hitRatioPercent").getAsDouble();
            double mine = gc(ours, "hitRatioPercent").getAsDouble();
            StringBuilder others = new StringBuilder();
            for (String[] other : new String[][] {
                    {"caffeineEqualEntries", "Caffeine holding as many entries as offheap (the policies alone)"},
                    {"caffeineEqualMemory", "Caffeine in as many bytes of heap, its own overhead counted"},
                    {"offheapLru", "offheap LRU"}, {"ohcLru", "OHC LRU"}, {"ohcTinyLfu", "OHC W-TinyLFU"}}) {
                at(cls, other[0], ours.params()).map(r -> gc(r, "hitRatioPercent"))
                        .filter(OptionalDouble::isPresent)
                        .ifPresent(d -> others.append("; ").append(other[1]).append(' ')
                                .append(percent(d.getAsDouble())));
            }
            // in decimal: 32.02 - 1 as doubles is above 31.02
            boolean pass = BigDecimal.valueOf(mine).compareTo(BigDecimal.valueOf(theirs).subtract(BigDecimal.ONE)) >= 0;
            String pp = shortOf(signed(mine - theirs), signed(-1), pass, () -> String.format(Locale.ROOT, "%+.2f",
                    BigDecimal.valueOf(mine - theirs).setScale(2, RoundingMode.FLOOR)));
            rows.add(new Row("hit ratio within 1 pp of Caffeine", label,
                    percent(mine) + " vs " + percent(theirs) + " (" + pp + " pp)" + others,
                    "≥ Caffeine − 1 pp", pass));
        }
    }

    /**
     * A measured value as shown, unless it failed and rounds to the target it missed: then rounded
     * towards failing (1.997x OHC shows 1.99x, not 2.00x next to a fail).
     *
     * @param nearest the value rounded to the nearest
     * @param target the target, formatted the same way
     * @param pass whether the goal is met
     * @param towardsFailing the value rounded towards failing
     */
    private static String shortOf(String nearest, String target, boolean pass, Supplier<String> towardsFailing) {
        return !pass && nearest.equals(target) ? towardsFailing.get() : nearest;
    }

    private static String percent(double p) {
        return String.format(Locale.ROOT, "%.2f%%", p);
    }

    private static String signed(double pp) {
        return String.format(Locale.ROOT, "%+.2f", pp);
    }

    private static String pct(double share) {
        return String.format(Locale.ROOT, "%.0f%%", share * 100);
    }

    private static String gbps(double bytesPerSecond) {
        return String.format(Locale.ROOT, "%.2f GB/s", bytesPerSecond / 1e9);
    }
}
