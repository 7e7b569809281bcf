package dev.offheap.bench.cache;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.JMException;
import javax.management.ObjectName;

/**
 * What the process itself says about its memory, for the footprint benchmark: Native Memory Tracking
 * through the {@code DiagnosticCommand} MBean ({@code jcmd <pid> VM.native_memory summary} from inside
 * the JVM), the resident set from {@code /proc/self/status}, and the heap in use after a full GC.
 *
 * <p>NMT sees what the JVM allocates, including {@code Unsafe.allocateMemory} and the FFM API's native
 * segments (category "Other"); it does not see {@code malloc} called through JNA or JNI, nor malloc's
 * own per-block overhead. The resident set sees everything that was touched.
 */
final class ProcessMemory {
    /**
     * NMT's "Other" category: where {@code Unsafe.allocateMemory} and the FFM API's native segments land.
     * The total would add the JIT's arenas, code and GC structures, which grow while a cache fills.
     */
    private static final Pattern OTHER_COMMITTED = Pattern.compile("-\\s+Other \\(reserved=\\d+KB, committed=(\\d+)KB");
    private static final Pattern RSS = Pattern.compile("VmRSS:\\s+(\\d+) kB");

    private ProcessMemory() {
    }

    /**
     * @return bytes NMT counts as committed in its "Other" category (native memory allocated through
     *     {@code Unsafe} and the FFM API), 0 if that category is still too small to be listed, or -1 if
     *     NMT is off or cannot be asked
     */
    static long nmtOtherCommittedBytes() {
        String summary = nativeMemory("summary");
        if (!summary.contains("Total: reserved=")) {
            return -1;
        }
        Matcher m = OTHER_COMMITTED.matcher(summary);
        return m.find() ? Long.parseLong(m.group(1)) * 1024 : 0;
    }

    private static String nativeMemory(String argument) {
        try {
            Object out = ManagementFactory.getPlatformMBeanServer().invoke(
                    new ObjectName("com.sun.management:type=DiagnosticCommand"), "vmNativeMemory",
                    new Object[] {new String[] {argument}}, new String[] {String[].class.getName()});
            return String.valueOf(out);
        } catch (JMException | RuntimeException e) {
            return "";
        }
    }

    /** @return the process's resident set in bytes, or -1 where /proc is not there */
    static long residentBytes() {
        try {
            Matcher m = RSS.matcher(Files.readString(Path.of("/proc/self/status")));
            return m.find() ? Long.parseLong(m.group(1)) * 1024 : -1;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** @return heap bytes in use after asking for a full collection (twice, to settle) */
    static long heapUsedAfterGc() {
        System.gc();
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
