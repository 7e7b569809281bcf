package dev.offheap.cli.bench;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.function.Function;

/**
 * A goal a suite's report checks against its results: "the pooled allocator at least 1.5x faster
 * than the faster of malloc and mimalloc", "two threads at most 1.25x the one-thread time", "the
 * footprint ratio at most 1.5". A goal names its variants by benchmark class and method, so it can
 * compare across classes (a two-thread class with its one-thread parent) and against several
 * references at once (the best of them counts). It is checked once per parameter set of its
 * subject, the references at the same parameters: at every one, or only at those with the
 * parameter values its statement names ({@link #at}, "with 4 KiB pages"); the subject's other
 * parameter sets are then left out, or shown for comparison and not counted
 * ({@link #withOthersForComparison}). Where some of its references have no result at a parameter
 * set, the goal can fail on the others but not pass: the missing one might be the fastest.
 *
 * <p>Speed comparisons work on the primary score in either JMH mode: in time modes lower is
 * faster, in throughput mode higher. A speedup is {@code reference time / subject time}, a slowdown
 * its inverse. Value goals read one number of the subject: its primary score or a secondary metric
 * ({@code @AuxCounters}, profilers).
 *
 * @param statement the goal in words, shown in the report
 * @param kind what is measured and how it is judged
 * @param target the bound: the least speedup, the most slowdown or the largest value; NaN for
 *     goals that only report
 * @param subject the variant the goal is about
 * @param references what it is compared with, the best of them counting; empty for value goals
 * @param judgedAt the parameter values a subject's result must have to be judged, by parameter name;
 *     empty to judge every parameter set
 * @param othersForComparison whether the subject's parameter sets outside {@code judgedAt} are shown,
 *     with the value measured there and {@link Verdict#FOR_COMPARISON} (not counted), instead of left out
 */
public record Goal(String statement, Kind kind, double target, Variant subject, List<Variant> references,
        Map<String, String> judgedAt, boolean othersForComparison) {

    /** What a goal measures, and whether it passes or fails. */
    public enum Kind {
        /** Subject's speedup over the fastest reference; passes at or above the target. */
        FASTER,
        /** Subject's slowdown against the fastest reference; passes at or below the target. */
        AT_MOST_SLOWER,
        /** Subject's slowdown against the fastest reference, reported without a verdict. */
        SLOWDOWN,
        /** The subject's value; passes at or below the target. */
        VALUE_AT_MOST,
        /** The subject's value, reported without a verdict. */
        VALUE
    }

    /**
     * A benchmark method, and optionally one of its secondary metrics and the thread count it must
     * have run with.
     *
     * @param benchmarkClass the class name without package, nested classes with dots
     *     ({@code BudgetBenchmark.TwoThreads}); matches a result whose class name ends with it
     * @param method the benchmark method
     * @param metric a secondary metric's name, or null for the primary score
     * @param threads the threads per fork a result must have run with (goals that compare thread
     *     counts: {@code --threads} runs every class on the same count), or 0 for any
     */
    public record Variant(String benchmarkClass, String method, String metric, int threads) {
        /**
         * @throws NullPointerException if the class or method is null
         * @throws IllegalArgumentException if either is blank, or the thread count is negative
         */
        public Variant {
            Objects.requireNonNull(benchmarkClass, "benchmarkClass");
            Objects.requireNonNull(method, "method");
            if (benchmarkClass.isBlank() || method.isBlank()) {
                throw new IllegalArgumentException("a variant needs a class and a method, got '" + benchmarkClass
                        + "' and '" + method + "'");
            }
            if (threads < 0) {
                throw new IllegalArgumentException("a variant's thread count is positive, or 0 for any, got "
                        + threads);
            }
        }

        /**
         * A variant that matches results at any thread count.
         *
         * @param benchmarkClass the class name without package
         * @param method the method
         * @param metric a secondary metric's name, or null for the primary score
         * @throws NullPointerException if the class or method is null
         * @throws IllegalArgumentException if either is blank
         */
        public Variant(String benchmarkClass, String method, String metric) {
            this(benchmarkClass, method, metric, 0);
        }

        /**
         * @param benchmarkClass the class name without package
         * @param method the method
         * @return the variant's primary score
         */
        public static Variant of(String benchmarkClass, String method) {
            return new Variant(benchmarkClass, method, null);
        }

        /**
         * @param name a secondary metric's name
         * @return this method's secondary metric of that name
         */
        public Variant metric(String name) {
            return new Variant(benchmarkClass, method, Objects.requireNonNull(name, "name"), threads);
        }

        /**
         * @param count threads per fork
         * @return this variant, matching only results that ran on {@code count} threads per fork
         * @throws IllegalArgumentException if {@code count} is not positive
         */
        public Variant threads(int count) {
            if (count < 1) {
                throw new IllegalArgumentException("a thread count is positive, got " + count);
            }
            return new Variant(benchmarkClass, method, metric, count);
        }

        boolean matches(JmhResult r) {
            String cls = r.className();
            return r.method().equals(method) && (threads == 0 || r.threads() == threads)
                    && (cls.equals(benchmarkClass) || cls.endsWith("." + benchmarkClass));
        }

        /** @return the method, with {@code on N threads} when it must run on N */
        String methodOnThreads() {
            return method + (threads == 0 ? "" : " on " + threads + (threads == 1 ? " thread" : " threads"));
        }

        /** @return {@code Class.method}, with {@code [metric]} when it reads one */
        public String label() {
            return benchmarkClass + "." + method + (metric == null ? "" : "[" + metric + "]");
        }
    }

    /** How one check came out. */
    public enum Verdict {
        /** The goal is met. */
        PASS,
        /** The goal is not met. */
        FAIL,
        /** Measured, but the goal only reports. */
        REPORTED,
        /**
         * The subject or every reference has no result at these parameters, or some reference has none
         * and the others alone would pass the goal (the missing one might be the fastest).
         */
        NOT_MEASURED,
        /**
         * Measured at parameters the goal does not name, shown beside the judged rows for comparison
         * ("the 4 MiB row for comparison"); neither passes nor fails, and is not counted as a check.
         */
        FOR_COMPARISON
    }

    /**
     * A goal checked at one parameter set.
     *
     * @param goal the goal
     * @param params the subject's parameters (empty when the subject has no result at all)
     * @param measured the speedup, slowdown or value; empty when not measured
     * @param verdict how it came out
     * @param detail the scores it was computed from, or what was missing
     */
    public record Check(Goal goal, Map<String, String> params, OptionalDouble measured, Verdict verdict,
            String detail) {
    }

    /**
     * Checks a goal and copies its references and parameters.
     *
     * @throws NullPointerException if a component, a reference, or a parameter name or value is null
     * @throws IllegalArgumentException if a comparison has no reference, a value goal has one, a
     *     verdict goal has no positive finite target, or others are shown for comparison while the
     *     goal judges every parameter set (there are none)
     */
    public Goal {
        Objects.requireNonNull(statement, "statement");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(subject, "subject");
        references = List.copyOf(references);
        judgedAt = Collections.unmodifiableMap(new LinkedHashMap<>(judgedAt));
        judgedAt.forEach((name, value) -> {
            Objects.requireNonNull(name, "parameter name");
            Objects.requireNonNull(value, "value of parameter " + name);
        });
        if (othersForComparison && judgedAt.isEmpty()) {
            throw new IllegalArgumentException("goal '" + statement + "' judges every parameter set, so it has none "
                    + "to show for comparison");
        }
        boolean comparison = kind == Kind.FASTER || kind == Kind.AT_MOST_SLOWER || kind == Kind.SLOWDOWN;
        if (comparison && references.isEmpty()) {
            throw new IllegalArgumentException(kind + " goal '" + statement + "' needs at least one reference");
        }
        if (!comparison && !references.isEmpty()) {
            throw new IllegalArgumentException(kind + " goal '" + statement + "' reads one value and takes no "
                    + "references, got " + references.size());
        }
        boolean judged = kind == Kind.FASTER || kind == Kind.AT_MOST_SLOWER || kind == Kind.VALUE_AT_MOST;
        if (judged && !(target > 0 && Double.isFinite(target))) {
            throw new IllegalArgumentException(kind + " goal '" + statement + "' needs a positive finite target, got "
                    + target);
        }
        if (comparison && references.stream().anyMatch(r -> r.metric() != null) || comparison && subject.metric() != null) {
            throw new IllegalArgumentException("speed goal '" + statement + "' compares primary scores, not metrics");
        }
    }

    /**
     * A goal judged at every parameter set of its subject.
     *
     * @param statement the goal in words, shown in the report
     * @param kind what is measured and how it is judged
     * @param target the bound; NaN for goals that only report
     * @param subject the variant the goal is about
     * @param references what it is compared with; empty for value goals
     * @throws NullPointerException if a component is null
     * @throws IllegalArgumentException as the canonical constructor does
     */
    public Goal(String statement, Kind kind, double target, Variant subject, List<Variant> references) {
        this(statement, kind, target, subject, references, Map.of(), false);
    }

    /**
     * This goal, judged only where the subject ran with {@code param=value} (and with the values
     * named before): "with 4 KiB pages" is {@code at("blockSize", "4096")}. A run without such a
     * result reports the goal as not measured at those parameters.
     *
     * @param param a {@code @Param} name of the subject
     * @param value the value the goal names
     * @return the restricted goal; this one is unchanged
     * @throws NullPointerException if either is null
     */
    public Goal at(String param, String value) {
        Map<String, String> at = new LinkedHashMap<>(judgedAt);
        at.put(Objects.requireNonNull(param, "param"), Objects.requireNonNull(value, "value"));
        return new Goal(statement, kind, target, subject, references, at, othersForComparison);
    }

    /**
     * This goal, showing the subject's parameter sets it does not judge beside the judged ones, with
     * what was measured there, as {@link Verdict#FOR_COMPARISON}: not passed, failed or counted.
     *
     * @return the goal; this one is unchanged
     * @throws IllegalArgumentException if this goal judges every parameter set ({@link #at} names none)
     */
    public Goal withOthersForComparison() {
        return new Goal(statement, kind, target, subject, references, judgedAt, true);
    }

    /**
     * @param statement the goal in words
     * @param factor the least speedup
     * @param subject the variant that should be faster
     * @param references what it should beat, the fastest of them counting
     * @return the goal "subject at least {@code factor} times faster than the fastest reference"
     */
    public static Goal faster(String statement, double factor, Variant subject, Variant... references) {
        return new Goal(statement, Kind.FASTER, factor, subject, Arrays.asList(references));
    }

    /**
     * @param statement the goal in words
     * @param factor the largest slowdown allowed
     * @param subject the variant that may be slower
     * @param references what it is compared with, the fastest of them counting
     * @return the goal "subject's time at most {@code factor} times the fastest reference's"
     */
    public static Goal atMostSlower(String statement, double factor, Variant subject, Variant... references) {
        return new Goal(statement, Kind.AT_MOST_SLOWER, factor, subject, Arrays.asList(references));
    }

    /**
     * @param statement what is reported, in words
     * @param subject the variant
     * @param references what it is compared with, the fastest of them counting
     * @return a report of the subject's slowdown, without a verdict
     */
    public static Goal slowdown(String statement, Variant subject, Variant... references) {
        return new Goal(statement, Kind.SLOWDOWN, Double.NaN, subject, Arrays.asList(references));
    }

    /**
     * @param statement the goal in words
     * @param bound the largest value allowed
     * @param subject the variant, usually with a {@link Variant#metric metric}
     * @return the goal "subject's value at most {@code bound}"
     */
    public static Goal valueAtMost(String statement, double bound, Variant subject) {
        return new Goal(statement, Kind.VALUE_AT_MOST, bound, subject, List.of());
    }

    /**
     * @param statement what is reported, in words
     * @param subject the variant, usually with a {@link Variant#metric metric}
     * @return a report of the subject's value, without a verdict
     */
    public static Goal value(String statement, Variant subject) {
        return new Goal(statement, Kind.VALUE, Double.NaN, subject, List.of());
    }

    /** @return the target in words: {@code ≥ 1.50x}, {@code ≤ 1.25x}, {@code ≤ 1.50}, or empty */
    public String targetText() {
        return switch (kind) {
            case FASTER -> "≥ " + BenchReport.ratio(target) + "x";
            case AT_MOST_SLOWER -> "≤ " + BenchReport.ratio(target) + "x";
            case VALUE_AT_MOST -> "≤ " + BenchReport.number(target);
            case SLOWDOWN, VALUE -> "";
        };
    }

    /**
     * Checks this goal at every parameter set its subject ran with that the goal {@link #judgedAt
     * judges}; with {@link #othersForComparison} the others follow as {@link Verdict#FOR_COMPARISON},
     * those measured.
     *
     * @param results the results of a run
     * @return one check per judged subject result, in result order, then those for comparison; when
     *     no subject result is judged, first one NOT_MEASURED check at the parameters the goal names
     *     (none when it names none)
     */
    public List<Check> check(List<JmhResult> results) {
        List<Check> checks = new ArrayList<>();
        List<Check> others = new ArrayList<>();
        for (JmhResult s : results) {
            if (!subject.matches(s)) {
                continue;
            }
            if (judges(s)) {
                checks.add(checkAt(s, results));
            } else if (othersForComparison) {
                Check c = checkAt(s, results);
                if (c.measured().isPresent()) {
                    others.add(new Check(this, c.params(), c.measured(), Verdict.FOR_COMPARISON, c.detail()));
                }
            }
        }
        if (checks.isEmpty()) {
            List<String> named = new ArrayList<>();
            judgedAt.forEach((k, v) -> named.add(k + "=" + v));
            checks.add(new Check(this, judgedAt, OptionalDouble.empty(), Verdict.NOT_MEASURED,
                    "no result of " + subject.label() + (named.isEmpty() ? "" : " at " + String.join(", ", named))));
        }
        checks.addAll(others);
        return checks;
    }

    private boolean judges(JmhResult s) {
        return judgedAt.entrySet().stream().allMatch(e -> e.getValue().equals(s.params().get(e.getKey())));
    }

    private Check checkAt(JmhResult s, List<JmhResult> results) {
        if (references.isEmpty()) {
            double v = valueOf(s, subject);
            if (Double.isNaN(v)) {
                return notMeasured(s, "no value of " + subject.label());
            }
            String detail = subject.method() + (subject.metric() == null ? " " + BenchReport.number(v) + " " + s.unit()
                    : " " + subject.metric() + " " + BenchReport.number(v));
            Verdict verdict = kind == Kind.VALUE ? Verdict.REPORTED : v <= target ? Verdict.PASS : Verdict.FAIL;
            return new Check(this, s.params(), OptionalDouble.of(v), verdict, detail);
        }
        if (Double.isNaN(s.score()) || s.score() <= 0) {
            return notMeasured(s, "no score of " + subject.label());
        }
        JmhResult best = null;
        List<String> missing = new ArrayList<>();
        for (Variant ref : references) {
            JmhResult r = counterpart(ref, s, results);
            if (r == null) {
                missing.add(ref.methodOnThreads());
            } else if (best == null || faster(r, best)) {
                best = r;
            }
        }
        if (best == null) {
            return notMeasured(s, "no result of " + String.join(", ", missing) + " at these parameters");
        }
        // speedup of the subject over the reference, in the direction of the mode: up / down; a
        // slowdown is the inverse quotient, divided directly (1 / speedup rounds: 23 / 20 read
        // 1.1500000000000001). The verdict compares the scores as JMH wrote them, not their rounded
        // quotient: 1.65 ns against 1.1 ns is a speedup of 1.5 that the doubles divide to 1.4999999999999998
        double up = s.lowerIsBetter() ? best.score() : s.score();
        double down = s.lowerIsBetter() ? s.score() : best.score();
        double measured = kind == Kind.FASTER ? up / down : down / up;
        Verdict verdict = switch (kind) {
            case FASTER -> compareQuotient(up, down, target) >= 0 ? Verdict.PASS : Verdict.FAIL;
            case AT_MOST_SLOWER -> compareQuotient(down, up, target) <= 0 ? Verdict.PASS : Verdict.FAIL;
            default -> Verdict.REPORTED;
        };
        // a reference that did not run may be the fastest: beating the others does not show the goal met,
        // while missing one of them already misses it
        boolean unproven = verdict == Verdict.PASS && !missing.isEmpty();
        StringBuilder detail = new StringBuilder();
        // the same method in two classes needs more than its name: the thread counts where they differ (a
        // two-thread class against its one-thread parent), else the classes (mixed against exclusive call sites)
        boolean acrossClasses = references.stream().anyMatch(v -> !v.benchmarkClass().equals(subject.benchmarkClass()));
        Function<JmhResult, String> label = !acrossClasses ? JmhResult::method
                : s.threads() != best.threads() ? Goal::methodAndThreads : Goal::classAndMethod;
        detail.append(label.apply(s)).append(' ').append(BenchReport.number(s.score())).append(' ').append(s.unit())
                .append(" vs ").append(label.apply(best)).append(' ').append(BenchReport.number(best.score())).append(' ')
                .append(best.unit());
        if (references.size() > 1) {
            detail.append(" (best of ").append(String.join(", ", references.stream().map(Variant::method).toList()));
            if (!missing.isEmpty()) {
                detail.append("; ").append(String.join(", ", missing)).append(" not measured");
            }
            detail.append(')');
        }
        if (unproven) {
            return notMeasured(s, detail.toString());
        }
        return new Check(this, s.params(), OptionalDouble.of(measured), verdict, detail.toString());
    }

    private static String methodAndThreads(JmhResult r) {
        return r.method() + " (" + r.threads() + (r.threads() == 1 ? " thread)" : " threads)");
    }

    private static String classAndMethod(JmhResult r) {
        String className = r.className();
        return className.substring(className.lastIndexOf('.') + 1) + "." + r.method();
    }

    private Check notMeasured(JmhResult s, String why) {
        return new Check(this, s.params(), OptionalDouble.empty(), Verdict.NOT_MEASURED, why);
    }

    /**
     * Compares {@code numerator / denominator} with {@code bound} exactly, on the shortest decimal of
     * each double (the number as JMH wrote it), so that a quotient of exactly the bound compares equal
     * where the division of the doubles would round past it.
     *
     * @param numerator the numerator, finite or infinite, not NaN
     * @param denominator the denominator, positive, not NaN
     * @param bound the bound, finite
     * @return negative, zero or positive as the quotient is below, at or above the bound
     */
    static int compareQuotient(double numerator, double denominator, double bound) {
        if (!Double.isFinite(numerator) || !Double.isFinite(denominator) || !Double.isFinite(bound)) {
            return Double.compare(numerator / denominator, bound);
        }
        return BigDecimal.valueOf(numerator).compareTo(BigDecimal.valueOf(bound).multiply(BigDecimal.valueOf(denominator)));
    }

    private static boolean faster(JmhResult a, JmhResult b) {
        return a.lowerIsBetter() ? a.score() < b.score() : a.score() > b.score();
    }

    private static double valueOf(JmhResult r, Variant v) {
        if (v.metric() == null) {
            return r.score();
        }
        JmhResult.Metric m = r.secondary().get(v.metric());
        return m == null ? Double.NaN : m.score();
    }

    /**
     * The reference's result at the subject's parameters: the same parameters, else the one whose
     * parameters agree on every name both have; it must be in the same mode and unit.
     */
    private static JmhResult counterpart(Variant ref, JmhResult s, List<JmhResult> results) {
        List<JmhResult> candidates = results.stream()
                .filter(ref::matches)
                .filter(r -> r.mode().equals(s.mode()) && r.unit().equals(s.unit()))
                .filter(r -> !Double.isNaN(r.score()) && r.score() > 0)
                .toList();
        for (JmhResult r : candidates) {
            if (r.params().equals(s.params())) {
                return r;
            }
        }
        List<JmhResult> fits = candidates.stream().filter(r -> r.params().entrySet().stream()
                .allMatch(e -> !s.params().containsKey(e.getKey()) || s.params().get(e.getKey()).equals(e.getValue())))
                .toList();
        return fits.size() == 1 ? fits.getFirst() : null;
    }

    /**
     * Formats a measured value for the report: {@code 2.31x} for speed goals, the number for value
     * goals. A failed value that rounds to the target itself is rounded towards failing instead (a
     * speedup of 1.497 against at least 1.5 shows {@code 1.49x}), so that the text never reads as the
     * target the verdict says it missed.
     *
     * @param check a check of this goal
     * @return its text, or {@code —} when not measured
     */
    public String measuredText(Check check) {
        if (check.measured().isEmpty()) {
            return "—";
        }
        double v = check.measured().getAsDouble();
        boolean value = kind == Kind.VALUE || kind == Kind.VALUE_AT_MOST;
        String text = value ? BenchReport.number(v) : BenchReport.ratio(v);
        if (check.verdict() == Verdict.FAIL && text.equals(value ? BenchReport.number(target) : BenchReport.ratio(target))) {
            // rounded to the nearest, a value just short of the target reads as the target (1.50x
            // next to FAIL for 1.497); rounded towards failing it reads as short of it
            RoundingMode failing = kind == Kind.FASTER ? RoundingMode.FLOOR : RoundingMode.CEILING;
            text = value ? BenchReport.number(v, failing) : BenchReport.ratio(v, failing);
        }
        return value ? text : text + "x";
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "%s (%s %s)", statement, kind, targetText());
    }
}
