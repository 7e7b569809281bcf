package dev.offheap.cli.inspect;

import dev.offheap.cli.compare.JsonWriter;
import dev.offheap.memory.ByteSize;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Renders a {@link Snapshot} for people (aligned tables, control characters of names shown as escapes) or for
 * programs (JSON, numbers in bytes, names as they are).
 * Stateless and thread-safe.
 */
final class SnapshotReport {
    /** Owners (and child budgets) listed per manager in the text; the JSON has them all. */
    static final int OWNERS_SHOWN = 5;

    private SnapshotReport() {
    }

    /**
     * @return the snapshot as text: a summary of the JVM, then one table each of managers, allocators and
     * caches, then the allocators' reports where they were asked for
     */
    static String text(Snapshot s) {
        StringBuilder sb = new StringBuilder();
        sb.append("JVM ").append(s.pid()).append(": ").append(shown(s.jvm())).append(", up ")
                .append(uptime(s.uptimeMillis())).append(" (").append(s.takenAt()).append(")\n");
        sb.append("  process   resident ").append(bytes(s.residentBytes())).append(", peak ")
                .append(bytes(s.residentPeak())).append('\n');
        sb.append("  heap      used ").append(bytes(s.heapUsed())).append(", committed ").append(bytes(s.heapCommitted()))
                .append(", max ").append(s.heapMax() < 0 ? "none" : bytes(s.heapMax())).append('\n');
        for (Snapshot.BufferPool pool : s.bufferPools()) {
            boolean usual = pool.name().equals("direct") || pool.name().equals("mapped");
            if (!usual && pool.count() <= 0) {
                continue; // e.g. "mapped - 'non-volatile memory'", empty unless the JVM maps persistent memory
            }
            sb.append("  ").append(String.format(Locale.ROOT, "%-9s", usual ? pool.name() : "buffers")).append(' ')
                    .append(count(pool.count())).append(pool.count() == 1 ? " buffer, " : " buffers, ")
                    .append(bytes(pool.memoryUsed())).append(usual ? "" : " (" + pool.name() + ")").append('\n');
        }
        Snapshot.Nmt nmt = s.nmt();
        if (nmt == null) {
            sb.append("  NMT       off (start the JVM with -XX:NativeMemoryTracking=summary to see all its native memory)\n");
        } else {
            sb.append("  NMT       committed ").append(bytes(nmt.committed())).append(", reserved ").append(bytes(nmt.reserved()));
            if (nmt.otherCommitted() >= 0) {
                sb.append("; Other (Unsafe, FFM) committed ").append(bytes(nmt.otherCommitted()));
            }
            sb.append(" (mapped files are not in NMT)\n");
        }

        sb.append('\n');
        if (s.managers().isEmpty()) {
            sb.append("Memory managers: none registered (dev.offheap:type=MemoryManager)\n");
        } else {
            sb.append("Memory managers (").append(s.managers().size()).append("):\n");
            List<List<String>> rows = new ArrayList<>();
            rows.add(List.of("name", "type", "page", "total", "used", "used pages", "free pages", "reserved", "peak",
                    "quarantined", "failures", "spills", "spilled"));
            for (Snapshot.Manager m : s.managers()) {
                rows.add(List.of(shown(m.name()), shown(m.memoryType()), bytes(m.pageSize()), bytes(m.totalBytes()), bytes(m.usedBytes()),
                        count(m.usedPages()), count(m.freePages()), bytes(m.reservedBytes()), bytes(m.peakUsedBytes()),
                        count(m.quarantined()), count(m.failures()), count(m.spills()), bytes(m.spilledBytes())));
            }
            table(sb, rows, 2);
            for (Snapshot.Manager m : s.managers()) {
                if (!m.usageByOwner().isEmpty()) {
                    sb.append("  owners of '").append(shown(m.name())).append("': ");
                    int shown = 0;
                    for (Map.Entry<String, Long> e : m.usageByOwner().entrySet()) {
                        if (shown == OWNERS_SHOWN) {
                            sb.append(", and ").append(m.usageByOwner().size() - shown).append(" more");
                            break;
                        }
                        sb.append(shown++ == 0 ? "" : ", ").append(shown(e.getKey())).append(' ').append(bytes(e.getValue()));
                    }
                    sb.append('\n');
                }
                if (!m.childBudgets().isEmpty()) {
                    // they hold part of the manager's memory too: without them fewer pages are free than the owners explain
                    sb.append("  child budgets of '").append(shown(m.name())).append("': ");
                    int shown = 0;
                    for (Snapshot.ChildBudget c : m.childBudgets()) {
                        if (shown == OWNERS_SHOWN) {
                            sb.append(", and ").append(m.childBudgets().size() - shown).append(" more");
                            break;
                        }
                        sb.append(shown++ == 0 ? "" : ", ").append(shown(c.name())).append(' ').append(bytes(c.usedBytes()))
                                .append(" of ").append(bytes(c.limitBytes()));
                        if (c.reservedBytes() > c.usedBytes()) {
                            sb.append(" (holds ").append(bytes(c.reservedBytes())).append(')');
                        }
                    }
                    sb.append('\n');
                }
            }
        }
        sb.append('\n');
        allocators(sb, s.allocators());
        sb.append('\n');
        if (s.caches().isEmpty()) {
            sb.append("Caches: none registered (dev.offheap:type=Cache)\n");
        } else {
            sb.append("Caches (").append(s.caches().size()).append("):\n");
            List<List<String>> rows = new ArrayList<>();
            rows.add(List.of("name", "capacity", "used", "entries", "hit ratio", "hits", "misses", "loads",
                    "load failures", "evictions", "evicted", "expirations"));
            for (Snapshot.Cache c : s.caches()) {
                rows.add(List.of(shown(c.name()), bytes(c.capacityBytes()), bytes(c.usedBytes()), count(c.entries()),
                        Double.isNaN(c.hitRatio()) ? "n/a" : String.format(Locale.ROOT, "%.1f%%", 100 * c.hitRatio()),
                        count(c.hits()), count(c.misses()), count(c.loads()), count(c.loadFailures()),
                        count(c.evictions()), bytes(c.evictedBytes()), count(c.expirations())));
            }
            table(sb, rows, 2);
        }
        for (Snapshot.Allocator a : s.allocators()) {
            if (a.report() != null) {
                sb.append("\nReport of allocator '").append(shown(a.name())).append("':\n")
                        .append(a.report().strip().indent(2));
            }
        }
        return sb.toString();
    }

    private static void allocators(StringBuilder sb, List<Snapshot.Allocator> allocators) {
        if (allocators.isEmpty()) {
            sb.append("Allocators: none registered (dev.offheap:type=Allocator; native allocators register when built"
                    + " with registerMBean(true))\n");
            return;
        }
        sb.append("Allocators (").append(allocators.size()).append("):\n");
        List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("name", "kind", "debug", "allocated", "allocations", "footprint", "capacity", "threads",
                "budget", "budget used", "budget limit", "problems"));
        for (Snapshot.Allocator a : allocators) {
            boolean budgeted = !a.budgetPath().isEmpty();
            rows.add(List.of(shown(a.name()), shown(a.kind()), shown(a.debugMode().toLowerCase(Locale.ROOT)), bytes(a.allocatedBytes()),
                    count(a.liveAllocations()), bytes(a.footprintBytes()), a.capacityBytes() < 0 ? "-" : bytes(a.capacityBytes()),
                    count(a.threads()), budgeted ? shown(a.budgetPath()) : "-", budgeted ? bytes(a.budgetUsed()) : "-",
                    budgeted ? bytes(a.budgetLimit()) : "-", count(a.problemsSeen())));
        }
        table(sb, rows, 2);
    }

    /** @return the snapshot as a JSON object, sizes in bytes, times in milliseconds, absent numbers as null */
    static String json(Snapshot s) {
        return JsonWriter.write(jsonTree(s));
    }

    static Map<String, Object> jsonTree(Snapshot s) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("pid", s.pid());
        doc.put("takenAt", s.takenAt().toString());
        doc.put("jvm", s.jvm());
        doc.put("uptimeMillis", s.uptimeMillis());
        doc.put("residentBytes", orNull(s.residentBytes()));
        doc.put("residentPeakBytes", orNull(s.residentPeak()));
        Map<String, Object> heap = new LinkedHashMap<>();
        heap.put("used", orNull(s.heapUsed()));
        heap.put("committed", orNull(s.heapCommitted()));
        heap.put("max", orNull(s.heapMax()));
        doc.put("heap", heap);
        doc.put("bufferPools", s.bufferPools().stream().map(p -> {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", p.name());
            m.put("count", orNull(p.count()));
            m.put("memoryUsed", orNull(p.memoryUsed()));
            m.put("totalCapacity", orNull(p.totalCapacity()));
            return (Object) m;
        }).toList());
        if (s.nmt() == null) {
            doc.put("nativeMemoryTracking", null);
        } else {
            Map<String, Object> nmt = new LinkedHashMap<>();
            nmt.put("reserved", s.nmt().reserved());
            nmt.put("committed", s.nmt().committed());
            nmt.put("otherCommitted", orNull(s.nmt().otherCommitted()));
            doc.put("nativeMemoryTracking", nmt);
        }
        doc.put("memoryManagers", s.managers().stream().map(m -> {
            Map<String, Object> o = new LinkedHashMap<>();
            o.put("name", m.name());
            o.put("memoryType", m.memoryType());
            o.put("pageSize", orNull(m.pageSize()));
            o.put("totalBytes", orNull(m.totalBytes()));
            o.put("totalPages", orNull(m.totalPages()));
            o.put("usedPages", orNull(m.usedPages()));
            o.put("freePages", orNull(m.freePages()));
            o.put("reservedBytes", orNull(m.reservedBytes()));
            o.put("usedBytes", orNull(m.usedBytes()));
            o.put("peakUsedBytes", orNull(m.peakUsedBytes()));
            o.put("allocationFailures", orNull(m.failures()));
            o.put("spillCount", orNull(m.spills()));
            o.put("spilledBytes", orNull(m.spilledBytes()));
            o.put("quarantinedPages", orNull(m.quarantined()));
            o.put("usageByOwner", new LinkedHashMap<String, Object>(m.usageByOwner()));
            o.put("childBudgets", m.childBudgets().stream().map(c -> {
                Map<String, Object> child = new LinkedHashMap<>();
                child.put("name", c.name());
                child.put("usedBytes", orNull(c.usedBytes()));
                child.put("reservedBytes", orNull(c.reservedBytes()));
                child.put("limitBytes", orNull(c.limitBytes()));
                return (Object) child;
            }).toList());
            return (Object) o;
        }).toList());
        doc.put("allocators", s.allocators().stream().map(a -> {
            Map<String, Object> o = new LinkedHashMap<>();
            o.put("name", a.name());
            o.put("kind", a.kind());
            o.put("debugMode", a.debugMode());
            o.put("allocatedBytes", orNull(a.allocatedBytes()));
            o.put("liveAllocations", orNull(a.liveAllocations()));
            o.put("footprintBytes", orNull(a.footprintBytes()));
            o.put("capacityBytes", orNull(a.capacityBytes()));
            o.put("threads", orNull(a.threads()));
            o.put("budgetPath", a.budgetPath().isEmpty() ? null : a.budgetPath());
            o.put("budgetLimitBytes", orNull(a.budgetLimit()));
            o.put("budgetUsedBytes", orNull(a.budgetUsed()));
            o.put("problemsSeen", orNull(a.problemsSeen()));
            o.put("report", a.report());
            return (Object) o;
        }).toList());
        doc.put("caches", s.caches().stream().map(c -> {
            Map<String, Object> o = new LinkedHashMap<>();
            o.put("name", c.name());
            o.put("capacityBytes", orNull(c.capacityBytes()));
            o.put("usedBytes", orNull(c.usedBytes()));
            o.put("entries", orNull(c.entries()));
            o.put("weightedSize", orNull(c.weightedSize()));
            o.put("hitRatio", Double.isNaN(c.hitRatio()) ? null : c.hitRatio());
            o.put("hits", orNull(c.hits()));
            o.put("misses", orNull(c.misses()));
            o.put("loads", orNull(c.loads()));
            o.put("loadFailures", orNull(c.loadFailures()));
            o.put("evictions", orNull(c.evictions()));
            o.put("evictedBytes", orNull(c.evictedBytes()));
            o.put("expirations", orNull(c.expirations()));
            return (Object) o;
        }).toList());
        return doc;
    }

    /**
     * @param name a name as an MBean gave it
     * @return the name as the text shows it: each control character as an escape (backslash n, backslash t,
     *         backslash r, else backslash u and four hex digits), so that a line feed or tab in a name does not split or
     *         shift its row; other characters as they are
     */
    static String shown(String name) {
        StringBuilder sb = null;
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (!Character.isISOControl(c)) {
                if (sb != null) {
                    sb.append(c);
                }
                continue;
            }
            if (sb == null) {
                sb = new StringBuilder(name.length() + 8).append(name, 0, i);
            }
            switch (c) {
                case '\n' -> sb.append("\\n");
                case '\t' -> sb.append("\\t");
                case '\r' -> sb.append("\\r");
                default -> sb.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
            }
        }
        return sb == null ? name : sb.toString();
    }

    private static Long orNull(long value) {
        return value < 0 ? null : value;
    }

    private static String bytes(long value) {
        return value < 0 ? "n/a" : ByteSize.format(value);
    }

    private static String count(long value) {
        return value < 0 ? "n/a" : group(value);
    }

    private static String group(long value) {
        return String.format(Locale.ROOT, "%,d", value);
    }

    static String uptime(long millis) {
        if (millis < 0) {
            return "n/a";
        }
        Duration d = Duration.ofMillis(millis);
        if (d.toHours() > 0) {
            return d.toHours() + "h " + d.toMinutesPart() + "m";
        }
        if (d.toMinutes() > 0) {
            return d.toMinutes() + "m " + d.toSecondsPart() + "s";
        }
        return d.toSeconds() + "s";
    }

    /** Appends rows as columns padded to their widest cell; the first column left-aligned, the rest right. */
    private static void table(StringBuilder sb, List<List<String>> rows, int indent) {
        int columns = rows.getFirst().size();
        int[] width = new int[columns];
        for (List<String> row : rows) {
            for (int i = 0; i < columns; i++) {
                width[i] = Math.max(width[i], row.get(i).length());
            }
        }
        for (List<String> row : rows) {
            StringBuilder line = new StringBuilder(" ".repeat(indent));
            for (int i = 0; i < columns; i++) {
                String cell = row.get(i);
                String pad = " ".repeat(width[i] - cell.length());
                line.append(i == 0 ? cell + pad : pad + cell).append(i + 1 < columns ? "  " : "");
            }
            sb.append(line.toString().stripTrailing()).append('\n');
        }
    }
}
