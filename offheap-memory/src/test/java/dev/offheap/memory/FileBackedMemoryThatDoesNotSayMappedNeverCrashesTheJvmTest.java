package dev.offheap.memory;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * File-backed memory is not always a segment whose {@link MemorySegment#isMapped()} is true: a segment
 * over a view of a {@link MappedByteBuffer} ({@code ofBuffer(buffer.asLongBuffer())}), or one that
 * {@code reinterpret} made over a mapping's address, is a plain native segment. After the file is
 * truncated, every access to it faults. The JDK's accessors turn the fault into an {@link InternalError};
 * a {@code memset} through the Linker (what {@link Segments#fill} used from 1 MiB on) is not guarded, and
 * the JVM died of SIGBUS. Each case runs in a child JVM, so that a crash fails the test, not the test run.
 */
class FileBackedMemoryThatDoesNotSayMappedNeverCrashesTheJvmTest {

    private static Path dir;
    private static int files;

    @BeforeAll
    static void open() throws IOException {
        dir = Files.createTempDirectory("file-backed-not-mapped");
    }

    @AfterAll
    static void close() throws IOException {
        try (var paths = Files.list(dir)) {
            for (Path p : paths.toList()) {
                Files.delete(p);
            }
        }
        Files.delete(dir);
    }

    /**
     * Child JVM: maps a file of {@code args[1]} bytes, views it as {@code args[2]} ({@code longBuffer}: a
     * segment over a long view of a MappedByteBuffer; {@code reinterpret}: a native segment at the mapping's
     * address), truncates the file, runs the helper {@code args[3]} over the whole view and prints the outcome.
     */
    public static final class RunOnTruncatedFile {
        private RunOnTruncatedFile() {
        }

        // reinterpret is restricted: the view covers exactly the mapping, which stays open until the end
        @SuppressWarnings("restricted")
        public static void main(String[] args) throws IOException {
            Path file = Path.of(args[0]);
            long size = Long.parseLong(args[1]);
            try (Arena arena = Arena.ofShared();
                    FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                            StandardOpenOption.WRITE)) {
                MemorySegment s = switch (args[2]) {
                    case "longBuffer" -> MemorySegment.ofBuffer(
                            ch.map(FileChannel.MapMode.READ_WRITE, 0, size).asLongBuffer());
                    case "reinterpret" -> MemorySegment.ofAddress(
                            ch.map(FileChannel.MapMode.READ_WRITE, 0, size, arena).address()).reinterpret(size);
                    default -> throw new IllegalArgumentException(args[2]);
                };
                if (s.isMapped()) {
                    System.out.println("RESULT the view says it is mapped: the case tests nothing");
                    return;
                }
                ch.truncate(0);
                MemorySegment other = arena.allocate(size);
                try {
                    switch (args[3]) {
                        case "fill" -> Segments.fill(s, 0, size, (byte) 1);
                        case "copyTo" -> Segments.copy(other, 0, s, 0, size);
                        case "copyFrom" -> Segments.copy(s, 0, other, 0, size);
                        case "swap" -> Segments.swap(other, 0, s, 0, size);
                        case "compare" -> Segments.compareUnsigned(other, 0, s, 0, size);
                        case "hash" -> Segments.hash64(s, 0, size);
                        default -> throw new IllegalArgumentException(args[3]);
                    }
                    System.out.println("RESULT no exception");
                } catch (Throwable t) {
                    System.out.println("RESULT " + t.getClass().getName());
                }
                System.out.flush();
            }
        }
    }

    @ParameterizedTest
    @CsvSource({
        "longBuffer, 4096, fill", "longBuffer, 65536, fill", "longBuffer, 4194304, fill",
        "reinterpret, 4096, fill", "reinterpret, 65536, fill", "reinterpret, 4194304, fill",
        "reinterpret, 4194304, copyTo", "reinterpret, 4194304, copyFrom", "reinterpret, 4194304, swap",
        "reinterpret, 4194304, compare", "longBuffer, 4194304, hash", "longBuffer, 4194304, swap"})
    void aHelperOnATruncatedFileFailsWithTheJdksErrorAndDoesNotCrashTheJvm(String view, long size, String helper) {
        SegmentKernelsPropertyTest.assertChildJvmGetsInternalError(dir.resolve("truncated" + (files++)),
                RunOnTruncatedFile.class, Long.toString(size), view, helper);
    }

    /**
     * Child JVM: maps a file of three pages, truncates it to one, and swaps {@code args[1]} bytes from offset
     * {@code args[2]} of the mapping (reaching into the pages past the new end) with a region of a native or
     * heap segment ({@code args[4]}), the mapping being the first or the second argument ({@code args[3]}).
     * Runs the same swaps on a healthy file first, so that the faulting one runs compiled. Prints the JDK's
     * error if no byte outside the two regions changed, and says so if one did.
     */
    public static final class SwapIntoTruncatedFile {
        private static final int PAGE = 4096;

        private SwapIntoTruncatedFile() {
        }

        public static void main(String[] args) throws IOException {
            Path file = Path.of(args[0]);
            int length = Integer.parseInt(args[1]);
            int offset = Integer.parseInt(args[2]);
            boolean mappedFirst = args[3].equals("first");
            try (Arena arena = Arena.ofShared();
                    FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                            StandardOpenOption.WRITE);
                    FileChannel warm = FileChannel.open(file.resolveSibling(file.getFileName() + ".warm"),
                            StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE,
                            StandardOpenOption.DELETE_ON_CLOSE)) {
                MemorySegment healthy = warm.map(FileChannel.MapMode.READ_WRITE, 0, 3 * PAGE, arena);
                MemorySegment other = args[4].equals("heap")
                        ? MemorySegment.ofArray(new byte[3 * PAGE]) : arena.allocate(3 * PAGE);
                for (int i = 0; i < 20_000; i++) {
                    swap(mappedFirst, healthy, other, offset, length);
                }
                MemorySegment mapping = ch.map(FileChannel.MapMode.READ_WRITE, 0, 3 * PAGE, arena);
                for (int i = 0; i < 3 * PAGE; i++) {
                    mapping.set(ValueLayout.JAVA_BYTE, i, (byte) i);
                    other.set(ValueLayout.JAVA_BYTE, i, (byte) ~i);
                }
                byte[] readable = outside(mapping.asSlice(0, PAGE), offset, length);
                byte[] otherBefore = outside(other, offset, length);
                ch.truncate(PAGE);
                String outcome;
                try {
                    swap(mappedFirst, mapping, other, offset, length);
                    outcome = "no exception";
                } catch (Throwable t) {
                    outcome = t.getClass().getName();
                }
                boolean unchanged = Arrays.equals(readable, outside(mapping.asSlice(0, PAGE), offset, length))
                        && Arrays.equals(otherBefore, outside(other, offset, length));
                System.out.println(unchanged ? "RESULT " + outcome : "CHANGED after " + outcome);
                System.out.flush();
            }
        }

        /** The bytes of {@code s} outside {@code [offset, offset + length)}. */
        private static byte[] outside(MemorySegment s, int offset, int length) {
            byte[] all = s.toArray(ValueLayout.JAVA_BYTE);
            int end = Math.min(all.length, offset + length);
            byte[] out = new byte[all.length - (end - offset)];
            System.arraycopy(all, 0, out, 0, offset);
            System.arraycopy(all, end, out, offset, all.length - end);
            return out;
        }

        private static void swap(boolean mappedFirst, MemorySegment mapping, MemorySegment other, int offset,
                int length) {
            if (mappedFirst) {
                Segments.swap(mapping, offset, other, offset, length);
            } else {
                Segments.swap(other, offset, mapping, offset, length);
            }
        }
    }

    /**
     * A swap whose region of a mapped file reaches past the end the file was truncated to faults: the JDK's
     * InternalError, in the interpreter and in compiled code, and no byte outside the two regions changes
     * (what is left inside them is undefined, as Segments.swap says).
     */
    @ParameterizedTest
    @CsvSource({
        "16, 4088, second, native", "16, 4088, first, native", "13, 4090, second, heap", "13, 4090, first, heap",
        "255, 4000, second, native", "300, 4000, second, native", "300, 4000, first, heap",
        "8192, 0, second, heap", "8192, 0, first, native", "6000, 2048, second, native"})
    void aSwapReachingPastTheEndOfATruncatedFileFailsWithTheJdksErrorAndWritesNothingOutsideItsRegions(int length, int offset, String mapped,
            String other) {
        SegmentKernelsPropertyTest.assertChildJvmGetsInternalError(dir.resolve("truncated" + (files++)),
                SwapIntoTruncatedFile.class, Integer.toString(length), Integer.toString(offset), mapped, other);
    }
}
