package dev.offheap.cli.compare;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * The program each variant's JVM runs: drives the offer service with the workload's threads, measures,
 * and writes a {@link VariantResult} as JSON. Started by {@link VariantLauncher}; not meant to be run by
 * hand.
 *
 * <p>Command line: {@code <result.json> key=value...} ({@link Workload#toArgs()}). Standard output
 * carries progress lines ({@value #PROGRESS} phase fraction) for the parent; standard error carries
 * messages and, on failure, the stack trace. Exit code 0 when the result was written, 1 otherwise.
 */
public final class CompareWorker {
    /** How long after a phase's start an open loop's schedule begins: time to start every request thread. */
    private static final long SCHEDULE_LEAD_NANOS = 10_000_000;
    /** Start of a progress line on standard output: {@code @progress warmup 0.25}. */
    public static final String PROGRESS = "@progress";
    /** Latencies above this (10 minutes) are recorded as this. */
    private static final long MAX_LATENCY_NANOS = 600_000_000_000L;

    private CompareWorker() {
    }

    /**
     * A histogram of request times in nanoseconds, to three significant digits from 1 ns up: one whose
     * lowest value was 1,000 ns (HdrHistogram rounds that down to 512) had 512 ns buckets below about 1 ms,
     * so a 3.6 us median read as 4.1 us.
     */
    static Histogram latencyHistogram() {
        return new Histogram(1, MAX_LATENCY_NANOS, 3);
    }

    /**
     * @param args the result file, then the workload's {@code key=value} arguments
     */
    public static void main(String[] args) {
        if (args.length < 2) {
            System.err.println("usage: CompareWorker <result.json> key=value...");
            System.exit(1);
        }
        endWithParent();
        try {
            Workload w = Workload.fromArgs(Arrays.asList(args).subList(1, args.length));
            VariantResult result = run(w, System.out);
            Path file = Path.of(args[0]);
            Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
            Files.writeString(tmp, JsonWriter.write(result.toMap()));
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            System.out.flush();
            System.exit(0);
        } catch (Throwable t) {
            System.err.println(VariantLauncher.WORKER_FAILED + t);
            t.printStackTrace();
            System.exit(1);
        }
    }

    /**
     * Ends this JVM (exit code 1, its shutdown hooks run: H2 closes the database) once the process that started
     * it, the {@code compare} command, has ended. The command's shutdown hook kills this JVM when the command is
     * stopped by a signal it can handle (SIGTERM, Ctrl-C), but a command killed outright (SIGKILL, the OOM killer)
     * runs no hook, and this JVM went on measuring for the rest of its run, or for ever if it hung, holding the
     * cores and the database with nobody to read its result.
     */
    private static void endWithParent() {
        ProcessHandle.current().parent().ifPresent(parent -> parent.onExit().thenRun(() -> {
            System.err.println("offheap compare: the command that started this variant JVM (process " + parent.pid()
                    + ") has ended; this JVM ends too");
            System.exit(1);
        }));
    }

    /**
     * Runs a workload in this JVM.
     *
     * @param w the workload
     * @param progress where progress lines go
     * @return what it measured
     * @throws Exception if a request failed, or the cache or store could not be built
     */
    public static VariantResult run(Workload w, PrintStream progress) throws Exception {
        OfferStore store = w.openStore(System.err::println);
        OfferCache cache;
        try {
            cache = w.variant().create(w.maxEntries(), w.valueSize());
        } catch (RuntimeException | LinkageError e) {
            store.close();
            throw e;
        }
        try (OfferService service = new OfferService(cache, store); JvmMetrics metrics = new JvmMetrics(w.nmt())) {
            metrics.start();
            SplittableRandom[] randoms = new SplittableRandom[w.threads()];
            for (int i = 0; i < randoms.length; i++) {
                randoms[i] = new SplittableRandom(w.seed() + i);
            }
            // H2 keeps the pages it reads on the heap: filled during the measured phase, they survived young
            // collections there and each of off-heap's few pauses spent most of its time copying them
            store.prime();
            runPhase(service, w, randoms, "warmup", w.warmupRequests(), 0, 0, null, progress);
            Histogram[] histograms = new Histogram[w.threads()];
            for (int i = 0; i < histograms.length; i++) {
                histograms[i] = latencyHistogram();
            }
            long requestsBefore = service.requests();
            long loadsBefore = service.loads();
            // Every variant starts measuring from a collected heap, as JMH starts each iteration: what the
            // warmup left in the young generation would otherwise add a collection early in the measured
            // phase or not, by chance, and a variant that allocates little would show 0 or 1 cycles from run
            // to run.
            System.gc();
            metrics.beginMeasure();
            runPhase(service, w, randoms, "measure", w.requests(), w.duration() == null ? 0 : w.duration().toNanos(),
                    w.rate(), histograms, progress);
            JvmMetrics.Snapshot s = metrics.endMeasure();
            long requests = service.requests() - requestsBefore;
            long loads = service.loads() - loadsBefore;
            Histogram all = latencyHistogram();
            for (Histogram h : histograms) {
                all.add(h);
            }
            long entries = cache.entries();
            long nativeBytes = cache.nativeBytes();
            long nmt = metrics.nmtCommittedBytes();
            long live = JvmMetrics.liveHeapAfterFullGc();
            long rss = JvmMetrics.residentPeakBytes();
            long heapMax = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getMax();
            progress.println(PROGRESS + " done 1");
            return new VariantResult(w.variant().label(), w.valueSize(), w.maxEntries(), null, requests, s.seconds(),
                    requests / s.seconds(), s.gcCycles(), s.gcTimeMillis(), s.pauseCount(), s.pauseTotalMillis(),
                    s.pauseMaxMillis(), s.heapPeakBytes(), s.heapAfterGcMaxBytes(), live, heapMax, nativeBytes, nmt, rss,
                    micros(all.getValueAtPercentile(50)), micros(all.getValueAtPercentile(99)),
                    micros(all.getValueAtPercentile(99.9)), micros(all.getMaxValue()),
                    requests == 0 ? Double.NaN : 1.0 - (double) loads / requests, entries, s.cpuSeconds(), s.gcCpuSeconds(),
                    s.othersCpuShare(), s.collectors(),
                    cache.describe(), store.describe(), Double.NaN);
        }
    }

    private static double micros(long nanos) {
        return nanos / 1e3;
    }

    /**
     * Runs one phase on the workload's threads: {@code requests} requests in all, or for {@code nanos}.
     * Each thread records its latencies in its own histogram (none in warmup).
     *
     * <p>With {@code rate} 0 the loop is closed: a thread sends its next request as soon as the last
     * returns, so while the service stalls (a GC pause) no request is waiting, and the stall shows in one
     * latency per thread. With a rate the loop is open: thread {@code t} of {@code n} starts its request
     * {@code k} at {@code start + (k + t / n) * n / rate} seconds, the threads' schedules interleaved, and a
     * latency counts from that scheduled start, so a request that had to wait behind a stall counts the
     * wait, as it would for a client of a real service. A thread ahead of its schedule parks, with its
     * timer slack at 1 ns (see {@link TimerSlack}) so that it wakes on time; one behind it sends at once.
     */
    private static void runPhase(OfferService service, Workload w, SplittableRandom[] randoms, String phase,
            long requests, long nanos, long rate, Histogram[] histograms, PrintStream progress) throws Exception {
        if (requests == 0 && nanos == 0) {
            return;
        }
        int threads = w.threads();
        LongAdder done = new LongAdder();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long offers = service.offers();
        List<Thread> running = new ArrayList<>();
        long start = System.nanoTime();
        for (int t = 0; t < threads; t++) {
            long mine = nanos != 0 ? Long.MAX_VALUE : requests / threads + (t < requests % threads ? 1 : 0);
            SplittableRandom random = randoms[t];
            Histogram histogram = histograms == null ? null : histograms[t];
            // the schedule in double nanoseconds: at high rates an interval is not a whole number of them
            double interval = rate == 0 ? 0 : threads * 1e9 / rate;
            double firstStart = start + SCHEDULE_LEAD_NANOS + interval * t / threads;
            running.add(Thread.ofPlatform().name("request-" + t).start(() -> {
                long sink = 0;
                if (w.rate() != 0) {
                    // in the warmup too: the first downcall of a JVM links it, which took tens of milliseconds
                    // and, in the measured phase, made the first requests of every thread late
                    TimerSlack.minimize();
                }
                try {
                    for (long i = 0; i < mine && failure.get() == null; i++) {
                        long id = random.nextLong(offers);
                        long t0 = System.nanoTime();
                        if (rate != 0) {
                            long scheduled = (long) (firstStart + i * interval);
                            while (t0 < scheduled) {
                                LockSupport.parkNanos(scheduled - t0);
                                t0 = System.nanoTime();
                            }
                            t0 = scheduled;
                        }
                        sink += service.fetch(id);
                        long t1 = System.nanoTime();
                        if (histogram != null) {
                            histogram.recordValue(Math.min(t1 - t0, MAX_LATENCY_NANOS));
                        }
                        done.increment();
                        if (phaseOver(start, t1, nanos)) {
                            break;
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
                if (sink == 42) {
                    // keeps the reads of each description from being optimized away
                    System.err.print("");
                }
            }));
        }
        for (Thread thread : running) {
            while (thread.isAlive()) {
                thread.join(1000);
                double fraction = nanos != 0 ? Math.min(1.0, (System.nanoTime() - start) / (double) nanos)
                        : done.sum() / (double) requests;
                progress.println(PROGRESS + " " + phase + " " + String.format(java.util.Locale.ROOT, "%.3f", fraction));
                progress.flush();
            }
        }
        Throwable f = failure.get();
        if (f instanceof Exception e) {
            throw e;
        } else if (f instanceof Error e) {
            throw e;
        }
    }

    /**
     * Whether a phase that runs for a time is over. Compares elapsed times, as {@link System#nanoTime()}
     * asks: its origin is arbitrary, so {@code start + nanos} can overflow (a long {@code --duration},
     * or a {@code start} near {@code Long.MAX_VALUE}) and would end the phase at once.
     *
     * @param start {@code nanoTime()} at the phase's start
     * @param now {@code nanoTime()} now
     * @param nanos the phase's length, or 0 for a phase counted in requests (never over by time)
     * @return whether {@code nanos} have passed since {@code start}
     */
    static boolean phaseOver(long start, long now, long nanos) {
        return nanos != 0 && now - start >= nanos;
    }
}
