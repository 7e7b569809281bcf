package dev.offheap.cli.bench;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Where and how a benchmark run happened: the command, the machine, the JDK, the date. JMH's JSON
 * does not record the machine or the command, so they are kept next to it in
 * {@code <suite>.run.properties}, and a report re-generated from committed files still says them.
 *
 * @param command the command line that produced the results
 * @param date when the run started, UTC, ISO-8601
 * @param cpu the CPU model
 * @param cores the processors the JVM saw
 * @param memory the machine's physical memory, e.g. {@code 7.8 GiB}
 * @param os operating system, kernel and architecture
 * @param jdk vendor and version of the JDK that launched the run
 * @param mode quick, full or smoke
 * @param skipped benchmarks of the suite that were left out because what they need is missing
 *     here ({@code package.Class.method} to the reason), sorted by name; empty when none
 */
public record RunInfo(String command, String date, String cpu, int cores, String memory, String os, String jdk,
        String mode, Map<String, String> skipped) {

    static final String SUFFIX = ".run.properties";
    private static final String SKIPPED_PREFIX = "skipped.";

    /** Copies the skipped benchmarks, sorted by name. */
    public RunInfo {
        skipped = Collections.unmodifiableMap(new TreeMap<>(skipped));
    }

    /**
     * A run without skipped benchmarks.
     *
     * @param command the command line that produced the results
     * @param date when the run started
     * @param cpu the CPU model
     * @param cores the processors the JVM saw
     * @param memory the machine's physical memory
     * @param os operating system, kernel and architecture
     * @param jdk vendor and version of the launching JDK
     * @param mode quick, full or smoke
     */
    public RunInfo(String command, String date, String cpu, int cores, String memory, String os, String jdk,
            String mode) {
        this(command, date, cpu, cores, memory, os, jdk, mode, Map.of());
    }

    /**
     * @param skippedBenchmarks benchmarks left out, by name, with the reason
     * @return this description with those skipped benchmarks
     */
    public RunInfo withSkipped(Map<String, String> skippedBenchmarks) {
        return new RunInfo(command, date, cpu, cores, memory, os, jdk, mode, skippedBenchmarks);
    }

    /**
     * Describes this machine and JVM now.
     *
     * @param command the command line
     * @param mode the mode name
     * @return the description
     */
    public static RunInfo current(String command, String mode) {
        String date = ZonedDateTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.SECONDS)
                .format(DateTimeFormatter.ISO_OFFSET_DATE_TIME);
        String jdk = System.getProperty("java.vendor", "?") + " " + System.getProperty("java.runtime.version",
                System.getProperty("java.version", "?")) + " (" + System.getProperty("java.vm.name", "?") + ")";
        return new RunInfo(command, date, cpuModel(), Runtime.getRuntime().availableProcessors(), physicalMemory(),
                operatingSystem(), jdk, mode);
    }

    /** @return a RunInfo for results whose run was not recorded */
    public static RunInfo unknown() {
        return new RunInfo("(not recorded)", "(not recorded)", "(not recorded)", 0, "(not recorded)",
                "(not recorded)", "(not recorded)", "(not recorded)");
    }

    /**
     * Reads the run description kept next to a result file, if there is one.
     *
     * @param resultJson the JMH JSON file, {@code <dir>/<suite>.json}
     * @return the description, or {@link #unknown()} if none was kept
     * @throws IOException if it exists but cannot be read
     */
    public static RunInfo readFor(Path resultJson) throws IOException {
        Path file = sidecar(resultJson);
        if (!Files.isRegularFile(file)) {
            return unknown();
        }
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
        }
        RunInfo u = unknown();
        int cores;
        try {
            cores = Integer.parseInt(p.getProperty("cores", "0"));
        } catch (NumberFormatException e) {
            cores = 0;
        }
        Map<String, String> skipped = new TreeMap<>();
        for (String key : p.stringPropertyNames()) {
            if (key.startsWith(SKIPPED_PREFIX)) {
                skipped.put(key.substring(SKIPPED_PREFIX.length()), p.getProperty(key));
            }
        }
        return new RunInfo(p.getProperty("command", u.command()), p.getProperty("date", u.date()),
                p.getProperty("cpu", u.cpu()), cores, p.getProperty("memory", u.memory()),
                p.getProperty("os", u.os()), p.getProperty("jdk", u.jdk()), p.getProperty("mode", u.mode()), skipped);
    }

    /**
     * Writes this description next to a result file.
     *
     * @param resultJson the JMH JSON file
     * @throws IOException if it cannot be written
     */
    public void writeFor(Path resultJson) throws IOException {
        Properties p = new Properties(); // Properties.store writes keys sorted (JDK 18+)
        p.setProperty("command", command);
        p.setProperty("date", date);
        p.setProperty("cpu", cpu);
        p.setProperty("cores", Integer.toString(cores));
        p.setProperty("memory", memory);
        p.setProperty("os", os);
        p.setProperty("jdk", jdk);
        p.setProperty("mode", mode);
        skipped.forEach((benchmark, reason) -> p.setProperty(SKIPPED_PREFIX + benchmark, reason));
        try (Writer w = Files.newBufferedWriter(sidecar(resultJson), StandardCharsets.UTF_8)) {
            p.store(w, "How " + resultJson.getFileName() + " was produced (read by offheap bench --report)");
        }
    }

    static Path sidecar(Path resultJson) {
        String name = resultJson.getFileName().toString();
        String base = name.endsWith(".json") ? name.substring(0, name.length() - 5) : name;
        return resultJson.resolveSibling(base + SUFFIX);
    }

    private static String cpuModel() {
        Path cpuinfo = Path.of("/proc/cpuinfo");
        if (Files.isReadable(cpuinfo)) {
            try (Stream<String> lines = Files.lines(cpuinfo)) {
                String model = lines.filter(l -> l.startsWith("model name") || l.startsWith("Model")
                                || l.startsWith("Hardware"))
                        .map(l -> l.substring(l.indexOf(':') + 1).trim())
                        .filter(s -> !s.isEmpty())
                        .findFirst().orElse(null);
                if (model != null) {
                    return model.replaceAll("\\s+", " ");
                }
            } catch (IOException | RuntimeException e) {
                // fall through to the architecture
            }
        }
        return "unknown CPU (" + System.getProperty("os.arch", "?") + ")";
    }

    private static String physicalMemory() {
        long bytes = physicalMemoryBytes();
        return bytes < 0 ? "unknown" : gib(bytes);
    }

    /**
     * @return the memory this process's children may use, in bytes: the smaller of the machine's
     *         ({@link #physicalMemoryBytes()}) and what the JDK sees, which is a container's memory limit where
     *         there is one; -1 when neither says
     */
    public static long memoryLimitBytes() {
        long machine = physicalMemoryBytes();
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            long seen = os.getTotalMemorySize();
            if (seen > 0) {
                return machine < 0 ? seen : Math.min(machine, seen);
            }
        }
        return machine;
    }

    /**
     * @return this machine's memory in bytes ({@code MemTotal} of /proc/meminfo, else what the JDK's
     *         OperatingSystemMXBean says), or -1 when neither says
     */
    public static long physicalMemoryBytes() {
        Path meminfo = Path.of("/proc/meminfo");
        if (Files.isReadable(meminfo)) {
            try {
                List<String> lines = Files.readAllLines(meminfo);
                for (String l : lines) {
                    if (l.startsWith("MemTotal:")) {
                        String[] parts = l.substring(9).trim().split("\\s+");
                        return Long.parseLong(parts[0]) * 1024;
                    }
                }
            } catch (IOException | RuntimeException e) {
                // fall through to the MXBean
            }
        }
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getTotalMemorySize();
        }
        return -1;
    }

    private static String gib(long bytes) {
        return String.format(java.util.Locale.ROOT, "%.1f GiB", bytes / (1024.0 * 1024 * 1024));
    }

    private static String operatingSystem() {
        String distro = null;
        Path osRelease = Path.of("/etc/os-release");
        if (Files.isReadable(osRelease)) {
            try (Stream<String> lines = Files.lines(osRelease)) {
                distro = lines.filter(l -> l.startsWith("PRETTY_NAME="))
                        .map(l -> l.substring("PRETTY_NAME=".length()).replace("\"", ""))
                        .findFirst().orElse(null);
            } catch (IOException | RuntimeException e) {
                distro = null;
            }
        }
        String kernel = System.getProperty("os.name", "?") + " " + System.getProperty("os.version", "?");
        return (distro == null ? "" : distro + ", ") + kernel + ", " + System.getProperty("os.arch", "?");
    }
}
