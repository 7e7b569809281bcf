package dev.offheap.cli.compare;

import dev.offheap.cli.bench.Json;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * Starts one variant's JVM ({@link CompareWorker}) and collects its result: the same java binary and
 * class path as this JVM, the run's heap (-Xmx and -Xms) and collector, native access, exit on
 * OutOfMemoryError, and the variant's own options. A JVM that crashes, runs out of memory, fails or
 * runs past the timeout gives a failed {@link VariantResult} that says why.
 *
 * <p>Not thread-safe: one launch at a time.
 */
public final class VariantLauncher {
    private static final int TAIL_LINES = 40;
    /** The most lines {@link #explainsFailure(String)} keeps of one JVM's output, besides its tail. */
    private static final int CAUSE_LINES = 8;
    /** The line the worker prints first when its run throws, before the stack trace. */
    static final String WORKER_FAILED = "offheap compare worker failed: ";
    /** Start of the failure of a variant that did not run, or was killed, because the command was stopped. */
    static final String STOPPED = "stopped with offheap compare (a signal or Ctrl-C)";

    private final long heapBytes;
    private final CompareOptions.Collector collector;
    private final Duration timeout;
    private final Function<Variant, List<String>> extraOptions;

    /**
     * @param heapBytes -Xmx and -Xms of every variant JVM
     * @param collector the collector
     * @param timeout how long a variant JVM may run before it is killed
     * @param extraOptions more JVM options per variant (empty for the command; tests add some)
     */
    public VariantLauncher(long heapBytes, CompareOptions.Collector collector, Duration timeout,
            Function<Variant, List<String>> extraOptions) {
        this.heapBytes = heapBytes;
        this.collector = collector;
        this.timeout = timeout;
        this.extraOptions = extraOptions;
    }

    /**
     * @param w the workload
     * @param resultFile where the worker writes its JSON
     * @param errorFile where JVM crash reports go ({@code -XX:ErrorFile})
     * @return the command line that runs the workload in a new JVM
     */
    public List<String> command(Workload w, Path resultFile, Path errorFile) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx" + heapOption());
        cmd.add("-Xms" + heapOption());
        cmd.add(collector.flag());
        cmd.add("--enable-native-access=ALL-UNNAMED");
        cmd.add("-XX:+ExitOnOutOfMemoryError");
        cmd.add("-XX:ErrorFile=" + errorFile.toAbsolutePath());
        cmd.add("-Djava.awt.headless=true");
        if (w.nmt()) {
            cmd.add("-XX:NativeMemoryTracking=summary");
        }
        cmd.addAll(w.variant().jvmOptions());
        cmd.addAll(extraOptions.apply(w.variant()));
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(CompareWorker.class.getName());
        cmd.add(resultFile.toAbsolutePath().toString());
        cmd.addAll(w.toArgs());
        return cmd;
    }

    /**
     * Runs a workload in a new JVM and waits for it.
     *
     * @param w the workload
     * @param logDir where the JVM's output ({@code <name>.log}), crash report and result go
     * @param name the files' base name, e.g. {@code 100000-5000-on-heap}
     * @param progress gets (phase, fraction done) as the worker reports them
     * @return the result, or a failed one saying why
     * @throws InterruptedException if interrupted while waiting (the JVM is killed)
     */
    public VariantResult run(Workload w, Path logDir, String name, BiConsumer<String, Double> progress)
            throws InterruptedException {
        String label = w.variant().label();
        long start = System.nanoTime();
        Path result = logDir.resolve(name + ".json");
        Path log = logDir.resolve(name + ".log");
        Path errorFile = logDir.resolve(name + "-hs_err.log");
        // the variant's JVM must not outlive this one: stopped by a signal (kill, a scheduler's TERM), this JVM
        // runs its shutdown hooks but leaves its children running, and nothing would enforce the timeout of a
        // JVM that goes on measuring, holding the cores and the database, or hangs. The hook comes first: this
        // JVM's thread goes on while the hooks run, and a variant started then, or the one the hook killed,
        // was reported as crashed ("killed by signal 9")
        AtomicBoolean stopping = new AtomicBoolean();
        AtomicReference<Process> started = new AtomicReference<>();
        Thread killer = new Thread(() -> {
            stopping.set(true);
            Process p = started.get();
            if (p != null) {
                p.destroyForcibly();
            }
        }, "variant-jvm-killer");
        if (!addShutdownHook(killer)) {
            return VariantResult.failed(label, w.valueSize(), w.maxEntries(), STOPPED + ": not started", 0);
        }
        Process process;
        try {
            Files.createDirectories(logDir);
            Files.deleteIfExists(result);
            Files.deleteIfExists(errorFile);
            process = new ProcessBuilder(command(w, result, errorFile)).redirectErrorStream(true).start();
        } catch (IOException e) {
            removeShutdownHook(killer);
            return VariantResult.failed(label, w.valueSize(), w.maxEntries(), "could not start its JVM: " + e, 0);
        }
        started.set(process);
        if (stopping.get()) {
            // the hook ran before the process was set
            process.destroyForcibly();
        }
        try {
            Deque<String> tail = new ArrayDeque<>();
            List<String> causes = new ArrayList<>();
            Thread reader = Thread.ofPlatform().daemon().name("variant-output").start(
                    () -> pump(process.getInputStream(), log, tail, causes, progress));
            boolean finished;
            try {
                finished = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                process.destroyForcibly();
                throw e;
            }
            if (!finished) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
            if (stopping.get()) {
                reader.join(5000);
                return VariantResult.failed(label, w.valueSize(), w.maxEntries(), STOPPED + " while it ran",
                        (System.nanoTime() - start) / 1e9);
            }
            return result(w, process, finished, reader, start, result, log, errorFile, tail, causes);
        } finally {
            removeShutdownHook(killer);
        }
    }

    private static boolean addShutdownHook(Thread hook) {
        try {
            Runtime.getRuntime().addShutdownHook(hook);
            return true;
        } catch (IllegalStateException shuttingDown) {
            return false;
        }
    }

    private static void removeShutdownHook(Thread hook) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running or has run: it kills the JVM, which has ended anyway
        }
    }

    /** The result of a variant JVM that ended or was killed: its JSON, or why it failed. */
    private VariantResult result(Workload w, Process process, boolean finished, Thread reader, long start, Path result,
            Path log, Path errorFile, Deque<String> tail, List<String> causes) throws InterruptedException {
        String label = w.variant().label();
        reader.join(5000);
        double seconds = (System.nanoTime() - start) / 1e9;
        // the lines that name the failure first: a stack trace with its causes (H2's run to 60 lines) pushed
        // the worker's own line out of the tail, and the reason read "failed with exit code 1: ... 26 more"
        List<String> lines = new ArrayList<>();
        synchronized (tail) {
            lines.addAll(causes);
            lines.addAll(tail);
        }
        if (!finished) {
            return VariantResult.failed(label, w.valueSize(), w.maxEntries(), "timed out after "
                    + Durations.format(timeout) + " and was killed (--timeout; output in " + log + ")", seconds);
        }
        int code = process.exitValue();
        if (code == 0) {
            try {
                Object json = Json.parse(Files.readString(result));
                if (json instanceof Map<?, ?> map) {
                    return VariantResult.fromMap(map).withJvmSeconds(seconds);
                }
                return VariantResult.failed(label, w.valueSize(), w.maxEntries(), "its result " + result
                        + " is not a JSON object", seconds);
            } catch (IOException | IllegalArgumentException e) {
                return VariantResult.failed(label, w.valueSize(), w.maxEntries(), "exited normally but left no "
                        + "readable result (" + e.getMessage() + ")", seconds);
            }
        }
        return VariantResult.failed(label, w.valueSize(), w.maxEntries(),
                failureReason(code, lines, Files.exists(errorFile) ? errorFile : null) + " (output in " + log + ")",
                seconds);
    }

    /**
     * Says why a variant JVM failed, from its exit code and the end of its output.
     *
     * @param exitCode the JVM's exit code, not 0
     * @param tail the lines of its output that explain a failure, then its last lines
     * @param crashReport the hs_err file it left, or null
     * @return one line: out of memory (of the heap, or of native memory), crashed, or the worker's error
     */
    static String failureReason(int exitCode, List<String> tail, Path crashReport) {
        for (String line : tail) {
            int oom = line.indexOf("java.lang.OutOfMemoryError");
            if (oom >= 0) {
                return "out of memory: " + line.substring(oom).trim() + " (exit code " + exitCode + ")";
            }
        }
        // HotSpot's own fatal error when the machine cannot back its memory (the heap, or native memory it needs):
        // an hs_err file as for a crash, but what happened is out of memory, and the next line says how much
        if (tail.stream().anyMatch(l -> l.contains(NO_NATIVE_MEMORY) || l.contains(NATIVE_ALLOCATION))) {
            String what = tail.stream().filter(l -> l.contains(NATIVE_ALLOCATION)).findFirst()
                    .or(() -> tail.stream().filter(l -> l.contains(NO_NATIVE_MEMORY)).findFirst()).orElseThrow();
            return "out of memory: the JVM could not get native memory: " + what.replaceFirst("^#\\s*", "").trim()
                    + " (exit code " + exitCode + ")" + (crashReport != null ? "; crash report " + crashReport : "");
        }
        if (crashReport != null || exitCode >= 128) {
            String how = exitCode >= 128 ? "killed by signal " + (exitCode - 128) : "exit code " + exitCode;
            return "crashed: the JVM died (" + how + ")" + (crashReport != null ? "; crash report " + crashReport : "");
        }
        for (String line : tail) {
            if (line.startsWith(WORKER_FAILED)) {
                return "the run threw " + line.substring(WORKER_FAILED.length());
            }
        }
        for (String line : tail) {
            if (line.startsWith("Error: ") || line.contains("Could not create the Java Virtual Machine")) {
                return "its JVM did not start: " + line.trim();
            }
        }
        String last = tail.stream().filter(l -> !l.isBlank()).reduce((a, b) -> b).orElse("no output");
        return "failed with exit code " + exitCode + ": " + last.trim();
    }

    /**
     * @param line a line of a variant JVM's output
     * @return whether {@link #failureReason} reads its reason from it: the worker's failure, an
     *         OutOfMemoryError, or the JVM's refusal to start
     */
    private static boolean explainsFailure(String line) {
        return line.startsWith(WORKER_FAILED) || line.contains("java.lang.OutOfMemoryError") || line.startsWith("Error: ")
                || line.contains("Could not create the Java Virtual Machine") || line.contains(NO_NATIVE_MEMORY)
                || line.contains(NATIVE_ALLOCATION);
    }

    /** HotSpot's fatal error when the machine cannot give it memory. */
    private static final String NO_NATIVE_MEMORY = "There is insufficient memory for the Java Runtime Environment";
    /** The line after {@link #NO_NATIVE_MEMORY}: what it asked for, e.g. "(mmap) failed to map 4398046511104 bytes". */
    private static final String NATIVE_ALLOCATION = "Native memory allocation (";

    /**
     * Copies the JVM's output to its log, keeps the last lines and the first ones that explain a failure
     * (however much output follows them), and hands progress lines to the listener.
     */
    private static void pump(InputStream in, Path log, Deque<String> tail, List<String> causes,
            BiConsumer<String, Double> progress) {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
                PrintWriter w = new PrintWriter(Files.newBufferedWriter(log, StandardCharsets.UTF_8))) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                if (line.startsWith(CompareWorker.PROGRESS + " ")) {
                    String[] parts = line.split(" ");
                    if (parts.length == 3) {
                        try {
                            progress.accept(parts[1], Double.parseDouble(parts[2]));
                        } catch (NumberFormatException e) {
                            // a garbled progress line only costs one progress update
                        }
                    }
                    continue;
                }
                w.println(line);
                w.flush();
                synchronized (tail) {
                    if (causes.size() < CAUSE_LINES && explainsFailure(line)) {
                        causes.add(line);
                    }
                    tail.addLast(line);
                    if (tail.size() > TAIL_LINES) {
                        tail.removeFirst();
                    }
                }
            }
        } catch (IOException e) {
            synchronized (tail) {
                tail.addLast("(reading the JVM's output failed: " + e + ")");
            }
        }
    }

    /** @return the heap option value as written on the command line, e.g. {@code 1024m} */
    public String heapOption() {
        return heapOption(heapBytes);
    }

    /**
     * @param heapBytes a heap size in bytes
     * @return it as -Xmx and -Xms take it: mebibytes when whole, e.g. {@code 1024m}, else bytes
     */
    public static String heapOption(long heapBytes) {
        return heapBytes % (1 << 20) == 0 ? (heapBytes >> 20) + "m" : Long.toString(heapBytes);
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "VariantLauncher[-Xmx%s, %s]", heapOption(), collector.label());
    }
}
