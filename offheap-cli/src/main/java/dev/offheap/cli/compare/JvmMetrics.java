package dev.offheap.cli.compare;

import com.sun.management.GarbageCollectionNotificationInfo;
import com.sun.management.OperatingSystemMXBean;
import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import jdk.jfr.consumer.RecordingStream;

/**
 * What the JVM did during the measured phase: garbage collections (count and time from the
 * {@link GarbageCollectorMXBean}s, pauses from JFR's {@code jdk.GCPhasePause} events), heap use (peak
 * and after GC), CPU time and native memory.
 *
 * <p>GC cycles and time count the collector's "cycle" beans: for G1 and Parallel every bean (their
 * collections are pauses: young, mixed, full, and G1's remark and cleanup); for ZGC the
 * {@code ZGC ... Cycles} beans, whose time is the concurrent cycles' duration (ZGC's pauses are in the
 * pause metrics instead).
 *
 * <p>Use: {@link #start()} once, {@link #beginMeasure()} when the measured phase starts,
 * {@link #endMeasure()} when it ends. Not thread-safe itself; the listeners it installs are.
 */
public final class JvmMetrics implements AutoCloseable {
    private static final Pattern NMT_TOTAL = Pattern.compile("Total: reserved=(\\d+)KB, committed=(\\d+)KB");
    /**
     * The JVM's garbage-collection threads by name: G1's and Parallel's workers ("GC Thread#n"), G1's
     * concurrent, refinement and service threads, ZGC's threads, and the VM thread, which runs the pauses.
     */
    private static final Pattern GC_THREAD = Pattern.compile("GC Thread.*|G1 .*|Z[A-Z][A-Za-z]*.*|VM Thread|GC .*");
    /** Clock ticks per second of /proc's CPU times (USER_HZ, 100 on Linux). */
    private static final double TICKS_PER_SECOND = 100;

    private final boolean nmt;
    private final List<GarbageCollectorMXBean> cycleBeans;
    private final Set<String> heapPools;
    private final OperatingSystemMXBean os;
    private final AtomicLong heapPeak = new AtomicLong();
    private final AtomicLong heapAfterGcMax = new AtomicLong(-1);
    private final ConcurrentLinkedQueue<Pause> pauses = new ConcurrentLinkedQueue<>();
    private final NotificationListener gcListener = this::onGc;
    private volatile boolean measuring;
    /**
     * Each collector bean's collection count when the measured phase began. The JVM tells the listeners of a
     * collection later, on its notification thread: the notice of the {@code System.gc()} just before the
     * phase could come after it had begun, and a collection is the phase's only if its id (the bean's count
     * after it) is above this.
     */
    private volatile Map<String, Long> collectionsBefore = Map.of();
    private RecordingStream jfr;
    private String jfrProblem;
    private Thread sampler;
    private long cyclesBefore;
    private long gcMillisBefore;
    private long cpuBefore;
    private Map<String, Long> gcThreadTicksBefore;
    private long[] machineTicksBefore;
    private long nanosBefore;
    private Instant measureStart;

    /** A GC pause, from JFR. */
    private record Pause(Instant start, Duration duration) {
    }

    /**
     * The measured phase's numbers.
     *
     * @param seconds wall time of the measured phase
     * @param gcCycles GC cycles counted by the cycle beans
     * @param gcTimeMillis their time, in milliseconds
     * @param pauseCount GC pauses JFR saw (-1 if JFR was unavailable)
     * @param pauseTotalMillis their total duration (NaN without JFR)
     * @param pauseMaxMillis the longest (NaN without JFR)
     * @param heapPeakBytes the highest heap use seen (sampled every 10 ms and before every GC)
     * @param heapAfterGcMaxBytes the highest heap use right after a GC (-1 if none ran)
     * @param cpuSeconds process CPU time, all threads
     * @param gcCpuSeconds CPU time of the JVM's GC threads (NaN where /proc is not there)
     * @param othersCpuShare the share of the machine's CPU capacity that other processes used during the
     *                       measured phase, 0 to 1 (NaN where /proc/stat is not there)
     * @param collectors names of the collector beans counted
     * @param jfrProblem why JFR pauses are missing, or null
     */
    public record Snapshot(double seconds, long gcCycles, double gcTimeMillis, long pauseCount, double pauseTotalMillis,
            double pauseMaxMillis, long heapPeakBytes, long heapAfterGcMaxBytes, double cpuSeconds, double gcCpuSeconds,
            double othersCpuShare, String collectors, String jfrProblem) {
    }

    /** @param nmt whether the JVM runs with {@code -XX:NativeMemoryTracking=summary}, so NMT can be read */
    public JvmMetrics(boolean nmt) {
        this.nmt = nmt;
        List<GarbageCollectorMXBean> all = ManagementFactory.getGarbageCollectorMXBeans();
        boolean zgc = all.stream().anyMatch(b -> b.getName().startsWith("ZGC"));
        this.cycleBeans = zgc ? all.stream().filter(b -> b.getName().contains("Cycles")).toList() : all;
        this.heapPools = ManagementFactory.getMemoryPoolMXBeans().stream()
                .filter(p -> p.getType() == MemoryType.HEAP).map(MemoryPoolMXBean::getName)
                .collect(Collectors.toUnmodifiableSet());
        this.os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    }

    /** Installs the GC listeners, starts the JFR stream and the heap sampler. */
    public void start() {
        for (GarbageCollectorMXBean b : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (b instanceof NotificationEmitter emitter) {
                emitter.addNotificationListener(gcListener, null, null);
            }
        }
        try {
            RecordingStream rs = new RecordingStream();
            rs.enable("jdk.GCPhasePause").withoutThreshold();
            rs.onEvent("jdk.GCPhasePause", e -> pauses.add(new Pause(e.getStartTime(), e.getDuration())));
            rs.startAsync();
            jfr = rs;
        } catch (RuntimeException | LinkageError e) {
            jfrProblem = "JFR unavailable: " + e;
        }
        sampler = Thread.ofPlatform().daemon().name("heap-sampler").start(() -> {
            var memory = ManagementFactory.getMemoryMXBean();
            while (!Thread.currentThread().isInterrupted()) {
                if (measuring) {
                    heapPeak.accumulateAndGet(memory.getHeapMemoryUsage().getUsed(), Math::max);
                }
                try {
                    Thread.sleep(10);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
    }

    /** Starts the measured phase: takes the counters' starting values. */
    public void beginMeasure() {
        heapPeak.set(ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
        heapAfterGcMax.set(-1);
        Map<String, Long> counts = new java.util.HashMap<>();
        for (GarbageCollectorMXBean b : ManagementFactory.getGarbageCollectorMXBeans()) {
            counts.put(b.getName(), b.getCollectionCount());
        }
        collectionsBefore = Map.copyOf(counts);
        cyclesBefore = cycles();
        gcMillisBefore = gcMillis();
        cpuBefore = os.getProcessCpuTime();
        gcThreadTicksBefore = gcThreadTicks();
        machineTicksBefore = machineTicks();
        measureStart = Instant.now();
        nanosBefore = System.nanoTime();
        measuring = true;
    }

    /**
     * Ends the measured phase.
     *
     * @return its numbers
     */
    public Snapshot endMeasure() {
        long nanos = System.nanoTime() - nanosBefore;
        measuring = false;
        long cycles = cycles() - cyclesBefore;
        long millis = gcMillis() - gcMillisBefore;
        long cpu = os.getProcessCpuTime() - cpuBefore;
        double gcCpu = gcCpuSeconds(gcThreadTicksBefore, gcThreadTicks());
        long[] machine = machineTicks();
        double othersShare = Double.NaN;
        if (machine != null && machineTicksBefore != null) {
            double machineBusySeconds = (machine[0] - machineTicksBefore[0]) / TICKS_PER_SECOND;
            double capacity = nanos / 1e9 * os.getAvailableProcessors();
            othersShare = Math.max(0, Math.min(1, (machineBusySeconds - cpu / 1e9) / capacity));
        }
        Instant end = Instant.now();
        long pauseCount = -1;
        double pauseTotal = Double.NaN;
        double pauseMax = Double.NaN;
        if (jfr != null) {
            // stop() delivers every event recorded so far before it returns
            jfr.stop();
            List<Pause> inside = pauses.stream()
                    .filter(p -> !p.start().isBefore(measureStart) && p.start().isBefore(end)).toList();
            pauseCount = inside.size();
            pauseTotal = inside.stream().mapToDouble(p -> p.duration().toNanos() / 1e6).sum();
            pauseMax = inside.stream().mapToDouble(p -> p.duration().toNanos() / 1e6).max().orElse(0);
        }
        String names = cycleBeans.stream().map(GarbageCollectorMXBean::getName).collect(Collectors.joining(", "));
        return new Snapshot(nanos / 1e9, cycles, millis, pauseCount, pauseTotal, pauseMax, heapPeak.get(),
                heapAfterGcMax.get(), cpu / 1e9, gcCpu, othersShare, names, jfrProblem);
    }

    /**
     * Runs a full GC and returns the heap in use after it: what the program keeps alive.
     *
     * @return heap bytes used after {@link System#gc()}
     */
    public static long liveHeapAfterFullGc() {
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /** @return NMT's committed total in bytes, or -1 if native memory tracking is off or unreadable */
    public long nmtCommittedBytes() {
        if (!nmt) {
            return -1;
        }
        try {
            Object out = ManagementFactory.getPlatformMBeanServer().invoke(
                    new ObjectName("com.sun.management:type=DiagnosticCommand"), "vmNativeMemory",
                    new Object[] {new String[] {"summary"}}, new String[] {String[].class.getName()});
            Matcher m = NMT_TOTAL.matcher(String.valueOf(out));
            return m.find() ? Long.parseLong(m.group(2)) * 1024 : -1;
        } catch (javax.management.JMException | RuntimeException e) {
            return -1;
        }
    }

    /**
     * CPU ticks used so far by each GC thread of this JVM, from {@code /proc/self/task/<tid>/stat}. Unlike
     * GC time, which is wall time and grows when other processes take the cores, this counts only the
     * work the collector did.
     *
     * @return thread id to user + system ticks; empty where /proc is not there
     */
    static Map<String, Long> gcThreadTicks() {
        Map<String, Long> ticks = new java.util.HashMap<>();
        try (var tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                try {
                    String stat = Files.readString(task.resolve("stat"));
                    int open = stat.indexOf('(');
                    int close = stat.lastIndexOf(')');
                    if (open < 0 || close < open || !GC_THREAD.matcher(stat.substring(open + 1, close)).matches()) {
                        continue;
                    }
                    // after the name: state is field 3; utime and stime are fields 14 and 15
                    String[] f = stat.substring(close + 2).split(" ");
                    ticks.put(task.getFileName().toString(), Long.parseLong(f[11]) + Long.parseLong(f[12]));
                } catch (IOException | RuntimeException e) {
                    // the thread ended between listing and reading: it has no ticks to count
                }
            }
        } catch (IOException | RuntimeException e) {
            return Map.of();
        }
        return ticks;
    }

    /**
     * @return the machine's busy CPU ticks so far, all cores (user, nice, system, irq, softirq, steal:
     *         everything in the first line of /proc/stat but idle and iowait), or null where it is not there
     */
    static long[] machineTicks() {
        try {
            String cpu = Files.readAllLines(Path.of("/proc/stat")).getFirst();
            String[] f = cpu.trim().split("\\s+");
            long busy = 0;
            for (int i = 1; i < Math.min(f.length, 9); i++) {
                if (i != 4 && i != 5) { // idle, iowait
                    busy += Long.parseLong(f[i]);
                }
            }
            return new long[] {busy};
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** @return the GC threads' CPU seconds between two {@link #gcThreadTicks()}, or NaN if /proc was not read */
    static double gcCpuSeconds(Map<String, Long> before, Map<String, Long> after) {
        if (after.isEmpty()) {
            return Double.NaN;
        }
        long ticks = 0;
        for (var e : after.entrySet()) {
            ticks += e.getValue() - before.getOrDefault(e.getKey(), 0L);
        }
        return ticks / TICKS_PER_SECOND;
    }

    /** @return the process's peak resident set (VmHWM) in bytes, or -1 where /proc is not there */
    public static long residentPeakBytes() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmHWM:")) {
                    return Long.parseLong(line.substring(6).trim().split("\\s+")[0]) * 1024;
                }
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return -1;
    }

    private void onGc(Notification n, Object handback) {
        if (!measuring || !n.getType().equals(GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION)) {
            return;
        }
        var info = GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
        Long before = collectionsBefore.get(info.getGcName());
        if (before != null && info.getGcInfo().getId() <= before) {
            // a collection that ended before the measured phase, told late
            return;
        }
        heapPeak.accumulateAndGet(heapSum(info.getGcInfo().getMemoryUsageBeforeGc()), Math::max);
        heapAfterGcMax.accumulateAndGet(heapSum(info.getGcInfo().getMemoryUsageAfterGc()), Math::max);
    }

    private long heapSum(Map<String, MemoryUsage> usage) {
        long sum = 0;
        for (var e : usage.entrySet()) {
            if (heapPools.contains(e.getKey())) {
                sum += e.getValue().getUsed();
            }
        }
        return sum;
    }

    private long cycles() {
        return cycleBeans.stream().mapToLong(b -> Math.max(0, b.getCollectionCount())).sum();
    }

    private long gcMillis() {
        return cycleBeans.stream().mapToLong(b -> Math.max(0, b.getCollectionTime())).sum();
    }

    @Override
    public void close() {
        if (sampler != null) {
            sampler.interrupt();
        }
        if (jfr != null) {
            jfr.close();
        }
        for (GarbageCollectorMXBean b : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (b instanceof NotificationEmitter emitter) {
                try {
                    emitter.removeNotificationListener(gcListener);
                } catch (javax.management.ListenerNotFoundException e) {
                    // never added to this one
                }
            }
        }
    }
}
