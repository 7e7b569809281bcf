package dev.offheap.cli;

import static dev.offheap.cli.OptionValues.items;
import static dev.offheap.cli.OptionValues.nonEmpty;
import static dev.offheap.cli.OptionValues.noValue;
import static dev.offheap.cli.OptionValues.next;
import static dev.offheap.cli.OptionValues.once;

import dev.offheap.cli.bench.BenchCharts;
import dev.offheap.cli.bench.BenchMode;
import dev.offheap.cli.bench.BenchPlan;
import dev.offheap.cli.bench.BenchReport;
import dev.offheap.cli.bench.Goal;
import dev.offheap.cli.bench.Baselines;
import dev.offheap.cli.bench.JmhResult;
import dev.offheap.cli.bench.Requirements;
import dev.offheap.cli.bench.RunInfo;
import dev.offheap.cli.bench.Suite;
import dev.offheap.cli.bench.Suites;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatFactory;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.BenchmarkListEntry;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;

/**
 * {@code offheap bench}: runs a JMH suite through the JMH API and writes its results as JMH JSON,
 * a markdown report with ratios to each class's baseline, PNG charts, and a description of the run.
 */
public final class BenchCommand implements Command {
    /** System property: the repository root, set by bin/offheap; --full writes to its docs/benchmarks. */
    public static final String HOME_PROPERTY = "offheap.home";
    /** System property: how the user invoked the CLI, for the report's command line. */
    public static final String COMMAND_PROPERTY = "offheap.command";

    private final Suites suites;
    private final Supplier<? extends Collection<BenchmarkListEntry>> available;
    private final Function<String, Optional<String>> unmet;

    /** The command over the standard suites and the benchmarks on the class path. */
    public BenchCommand() {
        this(Suites.standard(), BenchPlan::available);
    }

    /**
     * The command over some suites, leaving out benchmarks whose {@code @Requires} is unmet.
     *
     * @param suites the suites it knows
     * @param available the benchmarks it can run
     */
    public BenchCommand(Suites suites, Supplier<? extends Collection<BenchmarkListEntry>> available) {
        this(suites, available, Requirements.fromClassPath());
    }

    /**
     * @param suites the suites it knows
     * @param available the benchmarks it can run
     * @param unmet why a benchmark cannot run on this machine, by name; empty when it can
     */
    public BenchCommand(Suites suites, Supplier<? extends Collection<BenchmarkListEntry>> available,
            Function<String, Optional<String>> unmet) {
        this.suites = suites;
        this.available = available;
        this.unmet = unmet;
    }

    /**
     * The parsed command line.
     *
     * @param suite the suite to run, or null with --list or --report
     * @param mode quick, full or smoke
     * @param out the output directory, or null for the mode's default
     * @param include the --include filter, or null
     * @param threads --threads, or null
     * @param params --param overrides
     * @param gcProfiler whether --prof gc was given
     * @param list whether --list was given
     * @param reports the --report files
     * @param dryRun whether --dry-run was given
     * @param forks --forks, or null for the mode's
     */
    public record Args(Suite suite, BenchMode mode, Path out, Pattern include, Integer threads,
            Map<String, List<String>> params, boolean gcProfiler, boolean list, List<Path> reports,
            boolean dryRun, Integer forks) {
    }

    @Override
    public String name() {
        return "bench";
    }

    @Override
    public String summary() {
        return "run a JMH benchmark suite; write JSON, a markdown report with ratios, and charts";
    }

    @Override
    public String usage() {
        return """
                Usage: offheap bench <suite> [--full | --smoke] [--out DIR] [--include REGEX]
                                     [--threads N] [--forks N] [--param NAME=V1,V2] [--prof gc] [--dry-run]
                       offheap bench --list
                       offheap bench --report FILE.json [--out DIR]
                """;
    }

    @Override
    public String help() {
        StringBuilder suiteLines = new StringBuilder();
        int width = suites.all().stream().mapToInt(s -> s.name().length()).max().orElse(8);
        for (Suite s : suites.all()) {
            suiteLines.append("  ").append(pad(s.name(), width)).append("  ").append(s.description()).append('\n');
        }
        return usage() + """

                Runs the JMH benchmarks of a suite, each class with its baseline in the same run, and
                writes to the output directory:
                  <suite>.json            JMH's JSON results
                  <suite>.md              a table per class: score ± error and the ratio to its @Baseline,
                                          after the suite's goals, each checked with pass or fail
                  <suite>-<Class>.png     a bar chart per class
                  <suite>.run.properties  machine, JDK, date and command, for re-generating the report

                Suites:
                """ + suiteLines + """

                Modes (they set forks, warmup and measurement; the classes' other annotations apply):
                  (default)  quick: %s; a few minutes
                  --full     the committed numbers: %s;
                             output defaults to docs/benchmarks/ of the repository
                  --smoke    CI, proves the benchmarks run: %s, small parameters;
                             runs even while another JMH run holds JMH's lock

                Options:
                  --out DIR          output directory (default ./offheap-results, with --full docs/benchmarks)
                  --include REGEX    only the benchmarks whose full name (package.Class.method) matches
                  --threads N        run every benchmark on N threads (default: the class's @Threads)
                  --forks N          JVM forks per benchmark (default: the mode's; --full uses 2)
                  --param NAME=V,..  use these values for @Param NAME (repeatable for different names)
                  --prof gc          add JMH's GC profiler: allocation per op, GC count and time
                  --dry-run          print what would run, and with which settings, without running
                  --list             list the suites and how many benchmarks each has
                  --report FILE      re-generate <suite>.md and the charts from a JMH JSON file
                  -h, --help         this help
                Short names: -o --out, -i --include, -t --threads, -p --param. A value follows its option,
                or an = after it: --threads 4, --threads=4 or -t=4; gc in any case.
                """.formatted(BenchMode.QUICK.describe(), BenchMode.FULL.describe(), BenchMode.SMOKE.describe());
    }

    @Override
    public void run(List<String> argv, PrintStream out, PrintStream err) throws UsageException, CommandException {
        Args args = parse(argv);
        if (args.list()) {
            list(out);
        } else if (!args.reports().isEmpty()) {
            for (Path json : args.reports()) {
                List<Path> files = writeReport(json, args.out() == null ? dirOf(json) : args.out(), err,
                        goalsOf(suiteNameOf(json)));
                out.println("offheap: wrote " + joined(files));
            }
        } else {
            runSuite(args, argv, out, err);
        }
    }

    /**
     * Parses the arguments of {@code offheap bench}.
     *
     * @param argv the arguments after "bench"
     * @return the parsed arguments
     * @throws UsageException if they make no sense
     */
    public Args parse(List<String> argv) throws UsageException {
        Suite suite = null;
        BenchMode mode = null;
        Path out = null;
        Pattern include = null;
        Integer threads = null;
        Integer forks = null;
        Map<String, List<String>> params = new LinkedHashMap<>();
        boolean gc = false;
        boolean list = false;
        boolean dryRun = false;
        List<Path> reports = new ArrayList<>();
        Map<String, String> given = new HashMap<>();
        String runOption = null; // the first option that only shapes a run, as given
        for (int i = 0; i < argv.size(); i++) {
            OptionValues.Split split = OptionValues.split(argv.get(i));
            String arg = split.option();
            String value = split.inline();
            if (ONCE.containsKey(arg)) {
                once(given, ONCE.get(arg), arg);
            }
            if (runOption == null && RUN_ONLY.contains(arg)) {
                runOption = arg;
            }
            switch (arg) {
                case "--full", "--smoke", "--quick" -> {
                    noValue(arg, value);
                    BenchMode m = BenchMode.valueOf(arg.substring(2).toUpperCase(java.util.Locale.ROOT));
                    if (mode != null && mode != m) {
                        throw new UsageException("--" + mode.label() + " and " + arg + " exclude each other");
                    }
                    mode = m;
                }
                case "--list" -> {
                    noValue(arg, value);
                    list = true;
                }
                case "--dry-run" -> {
                    noValue(arg, value);
                    dryRun = true;
                }
                case "--out", "-o" -> out = Path.of(nonEmpty(arg, value != null ? value : next(argv, ++i, arg)));
                case "--include", "-i" -> {
                    String regex = value != null ? value : next(argv, ++i, arg);
                    try {
                        include = Pattern.compile(nonEmpty(arg, regex));
                    } catch (PatternSyntaxException e) {
                        throw new UsageException("--include: not a regular expression: " + e.getDescription()
                                + " in '" + regex + "'");
                    }
                }
                case "--threads", "-t" -> threads = intInRange(arg, "threads",
                        value != null ? value : next(argv, ++i, arg), 1024);
                case "--forks" -> forks = intInRange(arg, "forks",
                        value != null ? value : next(argv, ++i, arg), 20);
                case "--param", "-p" -> {
                    String p = value != null ? value : next(argv, ++i, arg);
                    int eq = p.indexOf('=');
                    if (eq <= 0 || eq == p.length() - 1) {
                        throw new UsageException("--param: expected NAME=VALUE[,VALUE...], got '" + p + "'");
                    }
                    String name = p.substring(0, eq);
                    // an empty item would pass here and fail only in JMH's forks, after the build-up of a run
                    List<String> values = items("--param", p.substring(eq + 1));
                    // JMH would measure a value given twice twice, and the report show two rows for one setting
                    Set<String> distinct = new LinkedHashSet<>();
                    for (String v : values) {
                        if (!distinct.add(v)) {
                            throw new UsageException("--param: " + name + " names the value " + v + " twice in '"
                                    + p.substring(eq + 1) + "'");
                        }
                    }
                    List<String> before = params.putIfAbsent(name, values);
                    if (before != null) {
                        List<String> all = new ArrayList<>(before);
                        all.addAll(values);
                        throw new UsageException("--param: " + name + " given twice (give its values as one list: "
                                + name + "=" + String.join(",", all) + ")");
                    }
                }
                case "--prof" -> {
                    String prof = value != null ? value : next(argv, ++i, arg);
                    if (!OptionValues.keyword(prof).equals("gc")) {
                        throw new UsageException("--prof: unknown profiler '" + prof + "' (supported: gc)");
                    }
                    gc = true;
                }
                case "--report" -> {
                    String file = nonEmpty(arg, value != null ? value : next(argv, ++i, arg));
                    Path json = Path.of(file);
                    // the report's suite is the file's name: a path without one (the root) has none
                    if (json.getFileName() == null) {
                        throw new UsageException("--report: expected a JMH JSON file, got '" + file + "'");
                    }
                    reports.add(json);
                }
                default -> {
                    if (arg.startsWith("-")) {
                        throw new UsageException("unknown option '" + argv.get(i) + "'");
                    }
                    if (suite != null) {
                        throw new UsageException("one suite at a time: got '" + suite.name() + "' and '" + arg + "'");
                    }
                    String name = arg;
                    suite = suites.find(name).orElseThrow(() -> new UsageException(
                            "unknown suite '" + name + "' (suites: " + suites.names() + ")"));
                }
            }
        }
        if (list && (suite != null || !reports.isEmpty())) {
            throw new UsageException("--list takes no suite and no --report");
        }
        if (!reports.isEmpty() && suite != null) {
            throw new UsageException("--report re-generates a report from a file and runs nothing: give it no suite");
        }
        // accepted and ignored, they would say the report or list was filtered or measured otherwise
        if (list && (runOption != null || out != null)) {
            throw new UsageException("--list takes no other option, got " + (runOption != null ? runOption : "--out"));
        }
        if (!reports.isEmpty() && runOption != null) {
            throw new UsageException("--report re-generates a report from a file and runs nothing: " + runOption
                    + " applies to a run (--report takes only --out)");
        }
        if (!list && reports.isEmpty() && suite == null) {
            throw new UsageException("which suite? (suites: " + suites.names() + "; --list shows them)");
        }
        return new Args(suite, mode == null ? BenchMode.QUICK : mode, out, include, threads, Map.copyOf(params), gc,
                list, List.copyOf(reports), dryRun, forks);
    }

    /**
     * The options that take one value, by every name, each with its canonical name: given twice, the second
     * would silently replace the first. Not here: {@code --param}, repeatable for different names, and
     * {@code --report}, repeatable.
     */
    private static final Map<String, String> ONCE = Map.of("--out", "--out", "-o", "--out", "--include", "--include",
            "-i", "--include", "--threads", "--threads", "-t", "--threads", "--forks", "--forks", "--prof", "--prof");

    /** The options that only shape a run, by every name: meaningless with --report or --list. */
    private static final Set<String> RUN_ONLY = Set.of("--full", "--smoke", "--quick", "--include", "-i",
            "--threads", "-t", "--forks", "--param", "-p", "--prof", "--dry-run");

    /**
     * Refuses a {@code --param} name that no benchmark about to run declares: JMH ignores a parameter no
     * benchmark has, so a misspelt name would run every value of the real one (an hour of {@code --full})
     * and write results that do not say the override was dropped.
     */
    private static void checkParamNames(Set<String> names, List<String> benchmarks,
            Collection<BenchmarkListEntry> entries) throws UsageException {
        Set<String> declared = new TreeSet<>();
        for (BenchmarkListEntry e : entries) {
            if (benchmarks.contains(e.getUsername())) {
                e.getParams().orElse(Map.of()).keySet().forEach(declared::add);
            }
        }
        for (String name : names) {
            if (!declared.contains(name)) {
                throw new UsageException("--param: no benchmark that would run has a @Param '" + name + "' ("
                        + (declared.isEmpty() ? "they have none" : "theirs: " + String.join(", ", declared)) + ")");
            }
        }
    }

    /**
     * Parses a count from 1 to {@code max} given for {@code option}, or says what was expected: for a count not
     * written as numbers are (see {@link OptionValues#wholeNumber}), how they are, as compare's and serve's
     * counts say it.
     *
     * @param option the option as given ({@code -t} or {@code --threads}), for the message
     */
    private static int intInRange(String option, String what, String text, int max) throws UsageException {
        int n;
        String how = "";
        try {
            n = (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, OptionValues.wholeNumber(text)));
        } catch (NumberFormatException e) {
            n = -1;
            if (!OptionValues.writtenAsAWholeNumber(text)) {
                how = " (" + OptionValues.HOW_NUMBERS_ARE_WRITTEN + ")";
            }
        }
        if (n < 1 || n > max) {
            throw new UsageException(option + ": expected a number of " + what + " from 1 to " + max + ", got '" + text
                    + "'" + how);
        }
        return n;
    }

    private void list(PrintStream out) {
        Collection<BenchmarkListEntry> entries = available.get();
        int width = suites.all().stream().mapToInt(s -> s.name().length()).max().orElse(8);
        out.println("Suites (offheap bench <suite>):");
        for (Suite s : suites.all()) {
            int n = BenchPlan.namesIn(s, entries).size();
            out.println("  " + pad(s.name(), width) + "  "
                    + pad(n == 0 ? "no benchmarks" : n + (n == 1 ? " benchmark" : " benchmarks"), 14)
                    + "  " + s.description());
        }
    }

    private void runSuite(Args args, List<String> argv, PrintStream out, PrintStream err)
            throws UsageException, CommandException {
        Suite suite = args.suite();
        Collection<BenchmarkListEntry> entries = available.get();
        BenchPlan plan = BenchPlan.create(suite, args.mode(), args.include(), args.threads(), args.forks(),
                args.params(), args.gcProfiler(), entries, unmet);
        printSkipped(plan, out);
        if (plan.benchmarks().isEmpty() && !plan.skipped().isEmpty()) {
            throw new CommandException("every benchmark of suite '" + suite.name() + "' that matched was left out: "
                    + String.join("; ", new LinkedHashSet<>(plan.skipped().values())));
        }
        if (plan.benchmarks().isEmpty()) {
            Set<String> all = BenchPlan.namesIn(suite, entries);
            if (all.isEmpty()) {
                throw new CommandException("suite '" + suite.name() + "' has no benchmarks: no JMH benchmark of package "
                        + suite.packageName() + " is on the class path (are its classes in offheap-bench, "
                        + "compiled with JMH's annotation processor?)");
            }
            throw new CommandException("no benchmark of suite '" + suite.name() + "' matches --include '"
                    + args.include().pattern() + "'; it has: " + String.join(", ", shortNames(all)));
        }
        checkParamNames(args.params().keySet(), plan.benchmarks(), entries);
        Path dir = args.out() != null ? args.out() : defaultOut(args.mode());
        String command = System.getProperty(COMMAND_PROPERTY, "offheap") + " bench " + quoted(argv);
        int n = plan.benchmarks().size();
        out.println("offheap: " + suite.name() + ", " + n + (n == 1 ? " benchmark" : " benchmarks") + ", mode "
                + args.mode().label() + " (" + args.mode().describe(args.forks()) + "), results to " + dir);
        if (args.dryRun()) {
            printPlan(plan, out);
            return;
        }
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new CommandException("cannot create the output directory " + dir + ": " + Folders.whyNotCreated(dir, e), e);
        }
        Path json = dir.resolve(suite.name() + ".json");
        checkWritable(dir, json);
        if (args.mode() == BenchMode.SMOKE && System.getProperty("jmh.ignoreLock") == null) {
            // JMH refuses to start while another JMH run holds /tmp/jmh.lock, so that measurements do not
            // disturb each other. A smoke run measures nothing worth protecting, and CI shares machines.
            System.setProperty("jmh.ignoreLock", "true");
        }
        RunInfo run = RunInfo.current(command, args.mode().label()).withSkipped(plan.skipped());
        List<RunResult> results = new ArrayList<>();
        for (Options options : plan.runs()) {
            try {
                results.addAll(new Runner(options).run());
            } catch (RunnerException e) {
                throw new CommandException("the benchmark run failed: " + e.getMessage(), e);
            }
        }
        try {
            ResultFormatFactory.getInstance(ResultFormatType.JSON, json.toString()).writeOut(results);
        } catch (IllegalStateException e) { // JMH's writer wraps the IOException
            throw new CommandException("cannot write " + json + ": " + (e.getCause() != null ? e.getCause() : e), e);
        }
        try {
            run.writeFor(json);
        } catch (IOException e) {
            throw new CommandException("cannot write the run description next to " + json + ": " + e, e);
        }
        List<Path> files = new ArrayList<>(List.of(json));
        files.addAll(writeReport(json, dir, err, suite.goals()));
        out.println("offheap: wrote " + joined(files));

        Set<String> measured = new TreeSet<>();
        results.forEach(r -> measured.add(r.getParams().getBenchmark()));
        Set<String> missing = new LinkedHashSet<>(plan.benchmarks());
        missing.removeAll(measured);
        if (!missing.isEmpty()) {
            throw new CommandException(missing.size() + " of " + plan.benchmarks().size()
                    + " benchmarks produced no result (see JMH's output above): " + String.join(", ", missing));
        }
    }

    /**
     * Fails before a run, which may take an hour, if its results could not be written afterwards: JMH's
     * writer would then throw, and the measurements would be lost.
     */
    private static void checkWritable(Path dir, Path json) throws CommandException {
        String suite = suiteNameOf(json);
        for (Path file : List.of(json, dir.resolve(suite + ".run.properties"), dir.resolve(suite + ".md"))) {
            if (Files.isDirectory(file) || (Files.exists(file) && !Files.isWritable(file))) {
                throw new CommandException("cannot write " + file + (Files.isDirectory(file)
                        ? ": a directory of that name is in the way" : ": not writable"));
            }
        }
        try {
            Files.delete(Files.createTempFile(dir, ".offheap-bench-", ".tmp"));
        } catch (IOException e) {
            throw new CommandException("cannot write to the output directory " + dir + ": " + e, e);
        }
    }

    private static void printSkipped(BenchPlan plan, PrintStream out) {
        Map<String, List<String>> byReason = new LinkedHashMap<>();
        plan.skipped().forEach((name, reason) -> byReason.computeIfAbsent(reason, r -> new ArrayList<>()).add(name));
        byReason.forEach((reason, names) -> out.println("offheap: skipping " + String.join(", ",
                shortNames(new LinkedHashSet<>(names))) + ": " + reason));
    }

    private List<Goal> goalsOf(String suiteName) {
        return suites.find(suiteName).map(Suite::goals).orElse(List.of());
    }

    private static String suiteNameOf(Path json) {
        String name = json.getFileName().toString();
        return name.endsWith(".json") ? name.substring(0, name.length() - 5) : name;
    }

    private static void printPlan(BenchPlan plan, PrintStream out) {
        out.println("Benchmarks:");
        plan.benchmarks().forEach(b -> out.println("  " + b));
        plan.params().forEach((k, v) -> out.println("Parameter " + k + " = " + String.join(",", v)));
        int i = 0;
        for (Options o : plan.runs()) {
            out.println("JMH run " + (++i) + " of " + plan.runs().size() + ":");
            out.println("  forks " + o.getForkCount().orElse(null) + ", warmup " + o.getWarmupIterations().orElse(null)
                    + " × " + o.getWarmupTime().orElse(null) + ", measurement " + o.getMeasurementIterations().orElse(null)
                    + " × " + o.getMeasurementTime().orElse(null)
                    + ", threads " + (o.getThreads().hasValue() ? o.getThreads().get().toString() : "from @Threads"));
            out.println("  jvmArgsPrepend " + o.getJvmArgsPrepend().orElse(List.of()));
            o.getProfilers().forEach(p -> out.println("  profiler " + p.getKlass()));
        }
    }

    /**
     * Writes {@code <suite>.md} and the charts for a JMH JSON file, the suite being the file's name.
     *
     * @param json the JMH JSON file
     * @param dir where to write
     * @param err where to warn if the charts cannot be drawn (the report is written anyway)
     * @return the files written
     * @throws CommandException if the JSON cannot be read or the report cannot be written
     */
    public static List<Path> writeReport(Path json, Path dir, PrintStream err) throws CommandException {
        return writeReport(json, dir, err,
                Suites.standard().find(suiteNameOf(json)).map(Suite::goals).orElse(List.of()));
    }

    /**
     * Writes {@code <suite>.md} and the charts for a JMH JSON file, checking the given goals.
     *
     * @param json the JMH JSON file
     * @param dir where to write
     * @param err where to warn if the charts cannot be drawn (the report is written anyway)
     * @param goals the suite's goals, checked in the report's goals section
     * @return the files written
     * @throws CommandException if the JSON cannot be read or the report cannot be written
     */
    public static List<Path> writeReport(Path json, Path dir, PrintStream err, List<Goal> goals)
            throws CommandException {
        String suite = suiteNameOf(json);
        List<Path> files = new ArrayList<>();
        try {
            List<JmhResult> results = JmhResult.read(json);
            BenchReport report = new BenchReport(suite, results, RunInfo.readFor(json), Baselines.fromClassPath(),
                    goals, Suites.standard().find(suite).flatMap(Suite::goalSection).orElse(null));
            try {
                Files.createDirectories(dir);
            } catch (IOException e) {
                throw new CommandException("cannot create the output directory " + dir + ": "
                        + Folders.whyNotCreated(dir, e), e);
            }
            Path md = dir.resolve(suite + ".md");
            Files.writeString(md, report.markdown());
            files.add(md);
            try {
                files.addAll(BenchCharts.write(suite, report.tables(), dir));
            } catch (IOException | RuntimeException | LinkageError | java.awt.AWTError e) {
                err.println("offheap: warning: could not draw the charts (" + e + "); the report has the numbers");
            }
        } catch (java.nio.file.NoSuchFileException e) {
            throw new CommandException("no such file: " + json, e);
        } catch (IOException e) {
            throw new CommandException("cannot read " + json + " or write its report: " + e, e);
        } catch (IllegalArgumentException e) {
            throw new CommandException(e.getMessage(), e);
        }
        return files;
    }

    private static Path defaultOut(BenchMode mode) {
        if (mode == BenchMode.FULL) {
            String home = System.getProperty(HOME_PROPERTY);
            return (home == null ? Path.of("") : Path.of(home)).resolve("docs").resolve("benchmarks");
        }
        return Path.of("offheap-results");
    }

    private static Path dirOf(Path file) {
        Path parent = file.toAbsolutePath().getParent();
        return parent == null ? Path.of("") : parent;
    }

    private static List<String> shortNames(Set<String> names) {
        return names.stream().map(n -> {
            int method = n.lastIndexOf('.');
            int cls = n.lastIndexOf('.', method - 1);
            return n.substring(cls + 1);
        }).toList();
    }

    private static String pad(String s, int width) {
        return s.length() >= width ? s : s + " ".repeat(width - s.length());
    }

    private static String joined(List<Path> files) {
        return String.join(", ", files.stream().map(Path::toString).toList());
    }

    static String quoted(List<String> argv) {
        List<String> parts = new ArrayList<>();
        for (String a : argv) {
            parts.add(a.matches("[A-Za-z0-9_./=,:@%+-]+") ? a : "'" + a.replace("'", "'\\''") + "'");
        }
        return String.join(" ", parts);
    }
}
