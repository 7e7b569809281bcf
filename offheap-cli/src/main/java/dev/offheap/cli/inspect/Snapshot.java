package dev.offheap.cli.inspect;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.InstanceNotFoundException;
import javax.management.JMException;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import javax.management.openmbean.TabularData;

/**
 * What {@code offheap inspect} saw of one JVM at one moment: its heap, the JDK's direct and mapped
 * buffers, native memory tracking when it is on, the process's resident set, and every offheap
 * {@code MemoryManager}, allocator and cache registered as an MBean ({@code dev.offheap:type=MemoryManager,*},
 * {@code dev.offheap:type=Allocator,*} and {@code dev.offheap:type=Cache,*}, JCache caches of the offheap
 * provider included).
 *
 * <p>Read through a JMX connection, local or remote: each MBean's attributes are read in one call, and
 * an MBean that goes away while it is read (a cache closed meanwhile) is left out, not an error.
 *
 * @param pid              the process id
 * @param takenAt          when the snapshot was taken
 * @param jvm              the JVM's name, vendor and version; its main class or command, as the JVM reports it
 * @param uptimeMillis     milliseconds since the JVM started
 * @param heapUsed         heap bytes in use
 * @param heapCommitted    heap bytes committed
 * @param heapMax          the heap's limit in bytes, -1 if none is set
 * @param bufferPools      the JDK's buffer pools (direct, mapped, ...), by name
 * @param nmt              native memory tracking's totals, or null where it is off (or could not be read)
 * @param residentBytes    the process's resident set (VmRSS), -1 where /proc cannot tell
 * @param residentPeak     the process's peak resident set (VmHWM), -1 where /proc cannot tell
 * @param managers         the offheap memory managers, by name
 * @param allocators       the offheap allocators that registered an MBean, by name
 * @param caches           the offheap caches, by name
 *
 * <p>Each list is in the order of the names it shows, numbers in names compared as numbers ({@code x-2} before
 * {@code x-10}); see {@link #NAME_ORDER}.
 */
public record Snapshot(long pid, Instant takenAt, String jvm, long uptimeMillis, long heapUsed, long heapCommitted,
        long heapMax, List<BufferPool> bufferPools, Nmt nmt, long residentBytes, long residentPeak,
        List<Manager> managers, List<Allocator> allocators, List<Cache> caches) {

    /** The domain and keys under which the library registers its MBeans. */
    static final String MANAGER_PATTERN = "dev.offheap:type=MemoryManager,*";
    static final String ALLOCATOR_PATTERN = "dev.offheap:type=Allocator,*";
    static final String CACHE_PATTERN = "dev.offheap:type=Cache,*";

    private static final Pattern NMT_TOTAL = Pattern.compile("Total: reserved=(\\d+)KB, committed=(\\d+)KB");
    private static final Pattern NMT_OTHER = Pattern.compile("-\\s+Other \\(reserved=(\\d+)KB, committed=(\\d+)KB\\)");

    /**
     * One of the JDK's buffer pools ({@code java.nio:type=BufferPool}).
     *
     * @param name          "direct", "mapped", ...
     * @param count         buffers in the pool
     * @param memoryUsed    bytes the JVM uses for them
     * @param totalCapacity bytes of all buffers' capacities
     */
    public record BufferPool(String name, long count, long memoryUsed, long totalCapacity) {
    }

    /**
     * Native memory tracking's summary.
     *
     * @param reserved       bytes reserved in all
     * @param committed      bytes committed in all
     * @param otherCommitted bytes committed in NMT's "Other" category (Unsafe and FFM allocations), -1 if absent
     */
    public record Nmt(long reserved, long committed, long otherCommitted) {
    }

    /**
     * A {@code MemoryManager}, from its MBean. A number the MBean did not give is -1.
     *
     * @param name           the manager's name
     * @param memoryType     HEAP, NATIVE or MAPPED
     * @param pageSize       bytes per page
     * @param totalBytes     bytes managed
     * @param totalPages     pages managed
     * @param usedPages      pages held by owners
     * @param freePages      pages free
     * @param reservedBytes  bytes reserved outside pages
     * @param usedBytes      bytes in use (pages, reservations, quarantined pages)
     * @param peakUsedBytes  the most bytes ever in use at once
     * @param failures       allocation requests refused
     * @param spills         spill callbacks called
     * @param spilledBytes   bytes spills gave back
     * @param quarantined    pages neither held nor free (released while a native call used them)
     * @param usageByOwner   bytes per owner, largest first
     * @param childBudgets   the children of the manager's budget, which hold part of its memory too, the one that
     *                       holds the most first; empty where there are none (or the MBean, of an older version,
     *                       does not tell)
     */
    public record Manager(String name, String memoryType, long pageSize, long totalBytes, long totalPages,
            long usedPages, long freePages, long reservedBytes, long usedBytes, long peakUsedBytes, long failures,
            long spills, long spilledBytes, long quarantined, Map<String, Long> usageByOwner,
            List<ChildBudget> childBudgets) {
    }

    /**
     * A child of a manager's budget ({@code MemoryManager.budget().child(...)}), from the manager's MBean. A number
     * the MBean did not give is -1.
     *
     * @param name          the child's name
     * @param usedBytes     bytes reserved through it now
     * @param reservedBytes bytes of the manager's memory it holds: its reservation, or its use where that is more
     * @param limitBytes    the most it may use
     */
    public record ChildBudget(String name, long usedBytes, long reservedBytes, long limitBytes) {
    }

    /**
     * An allocator ({@code PooledAllocator}, {@code NativeAllocator}, {@code StackAllocator}), from its MBean.
     * A number the MBean did not give, or that the allocator does not keep, is -1.
     *
     * @param name            the allocator's name
     * @param kind            pooled, malloc, mimalloc or stack
     * @param debugMode       OFF, SAMPLED or FULL
     * @param allocatedBytes  bytes of live allocations, as requested
     * @param liveAllocations live allocations
     * @param footprintBytes  native bytes the allocator holds
     * @param capacityBytes   the most it may hold, -1 for no cap of its own
     * @param threads         threads with a cache or stack of it
     * @param budgetPath      the budget it draws from, empty for none
     * @param budgetLimit     that budget's limit in bytes
     * @param budgetUsed      what that budget counts as used, other users included
     * @param problemsSeen    double frees, foreign frees and other misuse recorded (in a debug mode)
     * @param report          the allocator's report (live allocations by site in a debug mode), or null
     *                        unless asked for ({@code --reports})
     */
    public record Allocator(String name, String kind, String debugMode, long allocatedBytes, long liveAllocations,
            long footprintBytes, long capacityBytes, long threads, String budgetPath, long budgetLimit,
            long budgetUsed, long problemsSeen, String report) {
    }

    /**
     * A cache, from its MBean. A number the MBean did not give is -1 (NaN for the hit ratio).
     *
     * @param name          the cache's name
     * @param capacityBytes bytes the cache may use
     * @param usedBytes     bytes it uses now
     * @param entries       entries it holds
     * @param weightedSize  bytes of its entries
     * @param hitRatio      hits / (hits + misses), NaN before the first lookup
     * @param hits          lookups that found a value
     * @param misses        lookups that did not
     * @param loads         successful loads
     * @param loadFailures  loads that failed: threw, returned nothing, or gave a value that could not be stored
     * @param evictions     entries evicted for size
     * @param evictedBytes  bytes of those entries
     * @param expirations   entries that expired
     */
    public record Cache(String name, long capacityBytes, long usedBytes, long entries, long weightedSize,
            double hitRatio, long hits, long misses, long loads, long loadFailures, long evictions,
            long evictedBytes, long expirations) {
    }

    /**
     * Reads a snapshot through a connection.
     *
     * @param connection the JVM's MBean server
     * @param pid        the JVM's process id, for the resident set from /proc (when it is on this machine)
     * @param reports    whether to ask each allocator for its report (an operation: in FULL debug mode it walks
     *                   every live allocation)
     * @return the snapshot
     * @throws IOException if the connection fails
     * @throws JMException if the JVM's platform MBeans cannot be read
     */
    public static Snapshot collect(MBeanServerConnection connection, long pid, boolean reports)
            throws IOException, JMException {
        Instant now = Instant.now();
        AttributeList runtime = connection.getAttributes(new ObjectName(ManagementFactory.RUNTIME_MXBEAN_NAME),
                new String[] {"VmName", "VmVersion", "Uptime", "SystemProperties"});
        Map<String, Object> rt = asMap(runtime);
        String command = systemProperty(rt.get("SystemProperties"), "sun.java.command");
        String jvm = (command == null || command.isBlank() ? "" : command.split(" ", 2)[0] + ", ")
                + rt.getOrDefault("VmName", "JVM") + " " + rt.getOrDefault("VmVersion", "");
        long uptime = number(rt.get("Uptime"));

        Object heap = connection.getAttribute(new ObjectName(ManagementFactory.MEMORY_MXBEAN_NAME), "HeapMemoryUsage");
        long heapUsed = compositeLong(heap, "used");
        long heapCommitted = compositeLong(heap, "committed");
        long heapMax = compositeLong(heap, "max");

        List<BufferPool> pools = new ArrayList<>();
        for (ObjectName name : connection.queryNames(new ObjectName("java.nio:type=BufferPool,*"), null)) {
            Map<String, Object> a = attributes(connection, name, "Name", "Count", "MemoryUsed", "TotalCapacity");
            if (a != null) {
                pools.add(new BufferPool(String.valueOf(a.getOrDefault("Name", name.getKeyProperty("name"))),
                        number(a.get("Count")), number(a.get("MemoryUsed")), number(a.get("TotalCapacity"))));
            }
        }

        List<Manager> managers = new ArrayList<>();
        for (ObjectName name : connection.queryNames(new ObjectName(MANAGER_PATTERN), null)) {
            Map<String, Object> a = attributes(connection, name, "MemoryType", "PageSize", "TotalBytes",
                    "TotalPages", "UsedPages", "FreePages", "ReservedBytes", "UsedBytes", "PeakUsedBytes",
                    "AllocationFailures", "SpillCount", "SpilledBytes", "QuarantinedPages", "UsageByOwner",
                    "ChildBudgets");
            if (a != null) {
                managers.add(new Manager(registeredName(name), String.valueOf(a.getOrDefault("MemoryType", "?")),
                        number(a.get("PageSize")), number(a.get("TotalBytes")), number(a.get("TotalPages")),
                        number(a.get("UsedPages")), number(a.get("FreePages")), number(a.get("ReservedBytes")),
                        number(a.get("UsedBytes")), number(a.get("PeakUsedBytes")), number(a.get("AllocationFailures")),
                        number(a.get("SpillCount")), number(a.get("SpilledBytes")), number(a.get("QuarantinedPages")),
                        owners(a.get("UsageByOwner")), childBudgets(a.get("ChildBudgets"))));
            }
        }

        List<Allocator> allocators = new ArrayList<>();
        for (ObjectName name : connection.queryNames(new ObjectName(ALLOCATOR_PATTERN), null)) {
            Map<String, Object> a = attributes(connection, name, "Kind", "DebugMode", "AllocatedBytes",
                    "LiveAllocations", "FootprintBytes", "CapacityBytes", "ThreadCount", "BudgetPath",
                    "BudgetLimitBytes", "BudgetUsedBytes", "ProblemsSeen");
            if (a != null) {
                String report = reports ? report(connection, name) : null;
                allocators.add(new Allocator(registeredName(name), String.valueOf(a.getOrDefault("Kind", "?")),
                        String.valueOf(a.getOrDefault("DebugMode", "?")), number(a.get("AllocatedBytes")),
                        number(a.get("LiveAllocations")), number(a.get("FootprintBytes")), number(a.get("CapacityBytes")),
                        number(a.get("ThreadCount")), String.valueOf(a.getOrDefault("BudgetPath", "")),
                        number(a.get("BudgetLimitBytes")), number(a.get("BudgetUsedBytes")), number(a.get("ProblemsSeen")),
                        report));
            }
        }

        List<Cache> caches = new ArrayList<>();
        for (ObjectName name : connection.queryNames(new ObjectName(CACHE_PATTERN), null)) {
            Map<String, Object> a = attributes(connection, name, "CapacityBytes", "UsedBytes", "EntryCount",
                    "WeightedSize", "HitRatio", "HitCount", "MissCount", "LoadSuccessCount", "LoadFailureCount",
                    "EvictionCount", "EvictionBytes", "ExpirationCount");
            if (a != null) {
                Object ratio = a.get("HitRatio");
                long hits = number(a.get("HitCount"));
                long misses = number(a.get("MissCount"));
                // the MBean says 1.0 before the first lookup (Caffeine's convention); "n/a" tells a person more
                boolean looked = hits > 0 || misses > 0;
                caches.add(new Cache(registeredName(name), number(a.get("CapacityBytes")),
                        number(a.get("UsedBytes")), number(a.get("EntryCount")), number(a.get("WeightedSize")),
                        looked && ratio instanceof Number n ? n.doubleValue() : Double.NaN, number(a.get("HitCount")),
                        number(a.get("MissCount")), number(a.get("LoadSuccessCount")), number(a.get("LoadFailureCount")),
                        number(a.get("EvictionCount")), number(a.get("EvictionBytes")), number(a.get("ExpirationCount"))));
            }
        }

        pools.sort(Comparator.comparing(BufferPool::name, NAME_ORDER));
        managers.sort(Comparator.comparing(Manager::name, NAME_ORDER));
        allocators.sort(Comparator.comparing(Allocator::name, NAME_ORDER));
        caches.sort(Comparator.comparing(Cache::name, NAME_ORDER));
        long[] resident = resident(pid);
        return new Snapshot(pid, now, jvm.trim(), uptime, heapUsed, heapCommitted, heapMax, List.copyOf(pools),
                nmt(connection), resident[0], resident[1], List.copyOf(managers), List.copyOf(allocators),
                List.copyOf(caches));
    }

    /** @return the allocator's report, or what kept it from being read (the allocator closed meanwhile, say) */
    private static String report(MBeanServerConnection connection, ObjectName name) throws IOException {
        try {
            return String.valueOf(connection.invoke(name, "report", new Object[0], new String[0]));
        } catch (InstanceNotFoundException e) {
            return "(closed while it was read)";
        } catch (JMException | RuntimeException e) {
            return "(its report could not be read: " + e + ")";
        }
    }

    /** @return NMT's summary totals, or null where NMT is off or its output cannot be read */
    private static Nmt nmt(MBeanServerConnection connection) {
        try {
            Object out = connection.invoke(new ObjectName("com.sun.management:type=DiagnosticCommand"), "vmNativeMemory",
                    new Object[] {new String[] {"summary"}}, new String[] {String[].class.getName()});
            return parseNmt(String.valueOf(out));
        } catch (IOException | JMException | RuntimeException e) {
            // no DiagnosticCommand MBean (not a HotSpot JVM) or the command failed: the section says "not available"
            return null;
        }
    }

    /**
     * @param summary the text of {@code jcmd <pid> VM.native_memory summary}
     * @return its totals, or null if it has none (NMT is off)
     */
    static Nmt parseNmt(String summary) {
        Matcher total = NMT_TOTAL.matcher(summary);
        if (!total.find()) {
            return null;
        }
        Matcher other = NMT_OTHER.matcher(summary);
        return new Nmt(Long.parseLong(total.group(1)) * 1024, Long.parseLong(total.group(2)) * 1024,
                other.find() ? Long.parseLong(other.group(2)) * 1024 : -1);
    }

    /** @return VmRSS and VmHWM of the process in bytes, -1 each where /proc does not tell (another OS, gone) */
    static long[] resident(long pid) {
        long[] result = {-1, -1};
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    result[0] = kib(line);
                } else if (line.startsWith("VmHWM:")) {
                    result[1] = kib(line);
                }
            }
        } catch (NoSuchFileException e) {
            // not Linux, or the process is gone: the report says n/a
        } catch (IOException | RuntimeException e) {
            // unreadable (another user's process): n/a as well
        }
        return result;
    }

    private static long kib(String statusLine) {
        return Long.parseLong(statusLine.substring(statusLine.indexOf(':') + 1).trim().split("\\s+")[0]) * 1024;
    }

    /**
     * @return the MBean's attributes by name, or null if it went away before it was read (unregistered in
     *         between: a cache closed or a manager closed meanwhile); an attribute whose getter threw is absent
     */
    private static Map<String, Object> attributes(MBeanServerConnection connection, ObjectName name, String... names)
            throws IOException, JMException {
        try {
            return asMap(connection.getAttributes(name, names));
        } catch (InstanceNotFoundException e) {
            return null;
        }
    }

    private static Map<String, Object> asMap(AttributeList list) {
        Map<String, Object> map = new LinkedHashMap<>();
        for (Attribute a : list.asList()) {
            map.put(a.getName(), a.getValue());
        }
        return map;
    }

    /**
     * The order of the rows: by the name a row shows, runs of ASCII digits compared as numbers ({@code x-2} before
     * {@code x-10}), the rest character by character; names equal so (one number written with leading zeros) in
     * plain string order. Sorting by the MBean's canonical name put every name quoted in it ({@code "*"},
     * {@code "a,b"}) before the rest, and {@code x-10} before {@code x-2}.
     */
    static final Comparator<String> NAME_ORDER = Snapshot::compareNames;

    private static int compareNames(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            char ca = a.charAt(i);
            char cb = b.charAt(j);
            if (isDigit(ca) && isDigit(cb)) {
                int endA = digitsEnd(a, i);
                int endB = digitsEnd(b, j);
                int startA = skipZeros(a, i, endA);
                int startB = skipZeros(b, j, endB);
                // without leading zeros, the longer run is the larger number; of two as long, the first digit
                // that differs decides
                int byLength = Integer.compare(endA - startA, endB - startB);
                if (byLength != 0) {
                    return byLength;
                }
                int byDigits = a.substring(startA, endA).compareTo(b.substring(startB, endB));
                if (byDigits != 0) {
                    return byDigits;
                }
                i = endA;
                j = endB;
            } else {
                if (ca != cb) {
                    return Character.compare(ca, cb);
                }
                i++;
                j++;
            }
        }
        int byRest = Integer.compare(a.length() - i, b.length() - j);
        return byRest != 0 ? byRest : a.compareTo(b);
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static int digitsEnd(String s, int from) {
        int end = from;
        while (end < s.length() && isDigit(s.charAt(end))) {
            end++;
        }
        return end;
    }

    /** @return where the run's digits start past its leading zeros, keeping its last digit */
    private static int skipZeros(String s, int from, int end) {
        int start = from;
        while (start < end - 1 && s.charAt(start) == '0') {
            start++;
        }
        return start;
    }

    private static long number(Object value) {
        return value instanceof Number n ? n.longValue() : -1;
    }

    /**
     * @return the name the MBean is registered under: the object's name, or with a suffix ({@code -2}, ...)
     * where another live object of that name registered first, so that two rows never read the same
     */
    private static String registeredName(ObjectName name) {
        String property = name.getKeyProperty("name");
        if (property == null) {
            return name.getCanonicalName();
        }
        return property.startsWith("\"") ? ObjectName.unquote(property) : property;
    }

    private static long compositeLong(Object composite, String key) {
        return composite instanceof CompositeData data && data.containsKey(key) ? number(data.get(key)) : -1;
    }

    /** @return the value of {@code key} in a map an MXBean gives as TabularData (rows of "key" and "value"), or null */
    private static String systemProperty(Object properties, String key) {
        if (properties instanceof TabularData table) {
            for (Object row : table.values()) {
                if (row instanceof CompositeData data && key.equals(data.get("key"))) {
                    return String.valueOf(data.get("value"));
                }
            }
        }
        return null;
    }

    /**
     * @return the child budgets that a manager's MBean gave as an array of CompositeData, the one that holds the
     *         most first; empty for anything else
     */
    private static List<ChildBudget> childBudgets(Object children) {
        List<ChildBudget> list = new ArrayList<>();
        if (children instanceof CompositeData[] rows) {
            for (CompositeData row : rows) {
                if (row != null) {
                    list.add(new ChildBudget(row.containsKey("name") ? String.valueOf(row.get("name")) : "?",
                            compositeLong(row, "usedBytes"), compositeLong(row, "reservedBytes"),
                            compositeLong(row, "limitBytes")));
                }
            }
        }
        list.sort(Comparator.comparingLong(ChildBudget::reservedBytes).reversed());
        return List.copyOf(list);
    }

    /** @return a {@code Map<String, Long>} that an MXBean gave as TabularData, largest value first */
    private static Map<String, Long> owners(Object usage) {
        List<Map.Entry<String, Long>> entries = new ArrayList<>();
        if (usage instanceof TabularData table) {
            for (Object row : table.values()) {
                if (row instanceof CompositeData data && data.get("value") instanceof Number n) {
                    entries.add(Map.entry(String.valueOf(data.get("key")), n.longValue()));
                }
            }
        }
        entries.sort(Map.Entry.<String, Long>comparingByValue().reversed());
        Map<String, Long> largestFirst = new LinkedHashMap<>();
        for (Map.Entry<String, Long> e : entries) {
            largestFirst.put(e.getKey(), e.getValue());
        }
        return largestFirst;
    }
}
