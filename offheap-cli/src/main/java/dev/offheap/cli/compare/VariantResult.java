package dev.offheap.cli.compare;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What one variant measured at one setting, or why it failed. Byte counts are -1 and times NaN where
 * a number is not known (a failed run; NMT off; no GC in the measured phase). Immutable.
 *
 * @param variant the variant's label
 * @param valueSize description size in bytes
 * @param maxEntries the cache's bound in entries
 * @param failure null if the run succeeded, else why it failed (crash, out of memory, timeout)
 * @param requests measured requests
 * @param seconds wall time of the measured phase
 * @param throughput requests per second in the measured phase
 * @param gcCycles GC cycles in the measured phase ({@link JvmMetrics} says which beans count)
 * @param gcTimeMillis their time
 * @param pauseCount GC pauses (JFR), -1 if unknown
 * @param pauseTotalMillis total GC pause time (JFR)
 * @param pauseMaxMillis the longest GC pause (JFR)
 * @param heapPeakBytes the highest heap use in the measured phase
 * @param heapAfterGcBytes the highest heap use right after a GC in the measured phase
 * @param heapLiveBytes heap use after a full GC at the end, outside the measured phase: what stays alive
 * @param heapMaxBytes the JVM's maximum heap
 * @param cacheNativeBytes native memory the cache uses by its own accounting, at the end
 * @param nmtCommittedBytes the JVM's committed native memory by NMT, at the end; -1 if NMT was off
 * @param rssPeakBytes the process's peak resident set (VmHWM)
 * @param p50Micros median request latency, microseconds
 * @param p99Micros 99th percentile
 * @param p999Micros 99.9th percentile
 * @param maxMicros the slowest request
 * @param hitRatio requests served from the cache / requests
 * @param entries entries cached at the end
 * @param cpuSeconds process CPU time in the measured phase, all threads
 * @param gcCpuSeconds CPU time of the GC threads in the measured phase (NaN where /proc is not there)
 * @param othersCpuShare the share of the machine's CPU capacity other processes used during the measured
 *                       phase, 0 to 1 (NaN if unknown): above a few percent, they competed for the cores and
 *                       times are noisy
 * @param collectors the GC beans counted
 * @param cache the cache's description
 * @param store the store's description
 * @param jvmSeconds the variant JVM's whole life, start to exit, measured by the parent
 */
public record VariantResult(String variant, int valueSize, int maxEntries, String failure, long requests, double seconds,
        double throughput, long gcCycles, double gcTimeMillis, long pauseCount, double pauseTotalMillis,
        double pauseMaxMillis, long heapPeakBytes, long heapAfterGcBytes, long heapLiveBytes, long heapMaxBytes,
        long cacheNativeBytes, long nmtCommittedBytes, long rssPeakBytes, double p50Micros, double p99Micros,
        double p999Micros, double maxMicros, double hitRatio, long entries, double cpuSeconds, double gcCpuSeconds,
        double othersCpuShare, String collectors,
        String cache, String store, double jvmSeconds) {

    /** @return whether the run produced numbers */
    public boolean ok() {
        return failure == null;
    }

    /**
     * @param variant the variant's label
     * @param valueSize description size
     * @param maxEntries entry bound
     * @param failure why it failed
     * @param jvmSeconds how long its JVM ran
     * @return a result that says only that it failed, and why
     */
    public static VariantResult failed(String variant, int valueSize, int maxEntries, String failure, double jvmSeconds) {
        double nan = Double.NaN;
        return new VariantResult(variant, valueSize, maxEntries, failure, 0, nan, nan, -1, nan, -1, nan, nan, -1, -1, -1,
                -1, -1, -1, -1, nan, nan, nan, nan, nan, -1, nan, nan, nan, "", "", "", jvmSeconds);
    }

    /**
     * @param jvmSeconds the JVM's life as the parent measured it
     * @return this result with that time
     */
    public VariantResult withJvmSeconds(double jvmSeconds) {
        return new VariantResult(variant, valueSize, maxEntries, failure, requests, seconds, throughput, gcCycles,
                gcTimeMillis, pauseCount, pauseTotalMillis, pauseMaxMillis, heapPeakBytes, heapAfterGcBytes,
                heapLiveBytes, heapMaxBytes, cacheNativeBytes, nmtCommittedBytes, rssPeakBytes, p50Micros, p99Micros,
                p999Micros, maxMicros, hitRatio, entries, cpuSeconds, gcCpuSeconds, othersCpuShare, collectors, cache, store,
                jvmSeconds);
    }

    /** @return the fields by name, in declaration order, for JSON */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        for (var c : VariantResult.class.getRecordComponents()) {
            try {
                m.put(c.getName(), c.getAccessor().invoke(this));
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("cannot read " + c.getName(), e);
            }
        }
        return m;
    }

    /**
     * Reads what {@link #toMap()} wrote, after a round trip through JSON (numbers as doubles, NaN as null).
     *
     * @param m the map
     * @return the result
     * @throws IllegalArgumentException if a field is missing or has the wrong type
     */
    public static VariantResult fromMap(Map<?, ?> m) {
        var components = VariantResult.class.getRecordComponents();
        Object[] values = new Object[components.length];
        Class<?>[] types = new Class<?>[components.length];
        for (int i = 0; i < components.length; i++) {
            String name = components[i].getName();
            Class<?> type = components[i].getType();
            types[i] = type;
            if (!m.containsKey(name)) {
                throw new IllegalArgumentException("result has no '" + name + "'");
            }
            Object v = m.get(name);
            if (type == String.class) {
                if (v != null && !(v instanceof String)) {
                    throw new IllegalArgumentException("result field '" + name + "' is not a string: " + v);
                }
                values[i] = v;
            } else {
                if (v != null && !(v instanceof Number)) {
                    throw new IllegalArgumentException("result field '" + name + "' is not a number: " + v);
                }
                double d = v == null ? Double.NaN : ((Number) v).doubleValue();
                values[i] = type == double.class ? (Object) d : type == int.class ? (Object) (int) d : (Object) (long) d;
                if (v == null && type != double.class) {
                    values[i] = type == int.class ? (Object) (-1) : (Object) (-1L);
                }
            }
        }
        try {
            return VariantResult.class.getDeclaredConstructor(types).newInstance(values);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot build a result: " + e, e);
        }
    }
}
