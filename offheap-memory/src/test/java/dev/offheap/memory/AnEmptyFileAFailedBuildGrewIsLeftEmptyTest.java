package dev.offheap.memory;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static dev.offheap.memory.MappedManagers.mapped;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * An existing empty mapped file is grown to the total size (its blocks reserved) before it is mapped; when
 * the mapping then failed, the build's refusal left the caller's empty file at the full size with all its
 * blocks taken (256 MiB of disk here, of memory in /dev/shm), where an existing file is to be left as it was.
 * The mapping fails in a child JVM whose address space is limited to a little more than it uses.
 */
class AnEmptyFileAFailedBuildGrewIsLeftEmptyTest {
    @TempDir
    Path tempDir;

    @Test
    void aBuildWhoseMappingFailsLeavesTheEmptyFileItGrewEmpty() throws Exception {
        Assumptions.assumeTrue(Files.isReadable(Path.of("/proc/self/status")), "needs Linux's /proc");
        Path file = Files.createFile(tempDir.resolve("empty.bin"));
        Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-Xmx64m", "-cp", System.getProperty("java.class.path"),
                BuildWithLittleAddressSpace.class.getName(), file.toString()).redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(out).isZero();
        assertThat(out).as("the mapping failed").contains("refused: ").contains(file.toString());
        assertThat(Files.size(file)).as("the caller's empty file, after the failed build").isZero();
    }

    /** Limits its own address space to 64 MiB above what it uses, then builds a manager of 256 MiB on the file. */
    public static final class BuildWithLittleAddressSpace {
        private static final int RLIMIT_AS = 9;

        // downcallHandle is restricted: the descriptor matches int setrlimit(int, const struct rlimit *)
        @SuppressWarnings("restricted")
        public static void main(String[] args) throws Throwable {
            long used = Files.readAllLines(Path.of("/proc/self/status")).stream().filter(l -> l.startsWith("VmSize:"))
                    .mapToLong(l -> Long.parseLong(l.replaceAll("[^0-9]", "")) * 1024).findFirst().orElseThrow();
            Linker linker = Linker.nativeLinker();
            MethodHandle setrlimit = linker.downcallHandle(linker.defaultLookup().find("setrlimit").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment limit = arena.allocate(16, 8);
                limit.set(ValueLayout.JAVA_LONG, 0, used + (64L << 20));
                limit.set(ValueLayout.JAVA_LONG, 8, -1L); // RLIM_INFINITY: the hard limit stays
                if ((int) setrlimit.invokeExact(RLIMIT_AS, limit) != 0) {
                    throw new IllegalStateException("setrlimit failed");
                }
            }
            try (MemoryManager mm = mapped(Path.of(args[0]), 256L << 20).build()) {
                System.out.println("built " + mm.totalPages() + " pages");
            } catch (IllegalArgumentException e) {
                System.out.println("refused: " + e.getMessage());
            }
        }
    }
}
