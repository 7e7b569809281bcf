package dev.offheap.cache;

import dev.offheap.memory.Budget;
import dev.offheap.memory.MemoryManager;
import dev.offheap.memory.MemoryType;
import dev.offheap.memory.alloc.PooledAllocator;
import dev.offheap.memory.alloc.StackAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A JVM that ends while a cache, allocators and memory managers are in use (a compute running, a load waiting,
 * the idle releaser, the clean-up schedule and the cleaners started): its main method returning, {@code
 * System.exit} from another thread with a shutdown hook that closes everything, or {@code Runtime.halt}. The
 * library's threads never keep it from ending, a hook's closes do not hang, and a mapped manager's file, never
 * closed, is mapped at once by the next build with the bytes its page held.
 */
class AJvmThatEndsWhileTheLibraryIsInUseEndsAtOnceTest {
    /** A hang detector, not a timing test: each child JVM ends in a second or two. */
    private static final long EXIT_SECONDS = 20;

    @TempDir
    Path tempDir;

    @Test
    void aMainThatReturnsWithoutClosingAnythingEndsTheJvm() throws Exception {
        Path file = tempDir.resolve("pages.bin");
        assertThat(runChild("return", file)).isZero();
        assertThat(theFileHoldsThePage(file)).isTrue();
    }

    @Test
    void anExitFromAnotherThreadWhoseHookClosesEverythingEndsTheJvmWithItsCode() throws Exception {
        Path file = tempDir.resolve("pages.bin");
        assertThat(runChild("exit-hook", file)).isEqualTo(3);
        assertThat(output).contains("hook closed everything");
        assertThat(theFileHoldsThePage(file)).isTrue();
    }

    @Test
    void anExitWithoutAHookWhileAComputeRunsEndsTheJvmWithItsCode() throws Exception {
        Path file = tempDir.resolve("pages.bin");
        assertThat(runChild("exit", file)).isEqualTo(3);
        assertThat(theFileHoldsThePage(file)).isTrue();
    }

    @Test
    void aHaltEndsTheJvmAndLeavesTheMappedFileToTheNextBuild() throws Exception {
        Path file = tempDir.resolve("pages.bin");
        assertThat(runChild("halt", file)).isEqualTo(4);
        assertThat(theFileHoldsThePage(file)).isTrue();
    }

    private String output = "";

    private int runChild(String mode, Path file) throws IOException, InterruptedException {
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-Xmx64m", "-cp", System.getProperty("java.class.path"),
                InUse.class.getName(), mode, file.toString()).redirectErrorStream(true).start();
        try {
            StringBuffer seen = new StringBuffer();
            Thread reader = Thread.ofPlatform().daemon().start(() -> {
                try {
                    seen.append(new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
                } catch (IOException e) {
                    // the child ended
                }
            });
            assertThat(child.waitFor(EXIT_SECONDS, TimeUnit.SECONDS)).as("the JVM ended (%s)", mode).isTrue();
            reader.join(5000);
            output = seen.toString();
            assertThat(output).as("the child got as far as using everything").contains("in use");
            return child.exitValue();
        } finally {
            child.destroyForcibly();
        }
    }

    /** @return whether a new manager maps {@code file} at once and one of its pages holds the child's 4242 */
    private static boolean theFileHoldsThePage(Path file) {
        try (MemoryManager again = mapped(file)) {
            List<MemorySegment> pages = again.allocatePages("reader", again.totalPages());
            boolean found = pages.stream().anyMatch(page -> page.get(ValueLayout.JAVA_LONG, 0) == 4242L);
            again.releaseAll("reader");
            return found;
        }
    }

    private static MemoryManager mapped(Path file) {
        return MemoryManager.builder().registerMBean(false).type(MemoryType.MAPPED).mappedFile(file).pageSize(4096)
                .totalSize(1L << 20).build();
    }

    /** Uses a cache, allocators and managers, then ends as its first argument says; run in a JVM of its own. */
    public static final class InUse {
        public static void main(String[] args) throws Exception {
            String mode = args[0];
            Budget root = Budget.root("process", 1L << 30);
            PooledAllocator pool = PooledAllocator.builder().budget(root.child("pool", 64L << 20)).build();
            for (int i = 0; i < 1000; i++) {
                pool.free(pool.allocate(i * 10L + 1));
                pool.allocate(i + 1L);
            }
            StackAllocator.Frame frame = StackAllocator.push();
            frame.allocate(1000);
            MemoryManager pages = MemoryManager.builder().totalSize(16L << 20).build();
            pages.allocatePage("owner");
            MemoryManager file = mapped(Path.of(args[1]));
            file.allocatePage("writer").set(ValueLayout.JAVA_LONG, 0, 4242L);
            OffHeapCache<Long, String> cache = OffHeapCache.builder(Serializer.longs(), Serializer.strings())
                    .capacity(8L << 20).expireAfterWrite(Duration.ofSeconds(1)).cleanUpInterval(Duration.ofMillis(10))
                    .build();
            for (long i = 0; i < 1000; i++) {
                cache.put(i, "value " + i);
            }
            if (mode.equals("exit-hook")) {
                Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                    cache.close();
                    pool.close();
                    pages.close();
                    file.close();
                    System.out.println("hook closed everything");
                    System.out.flush();
                }));
            }
            CountDownLatch computing = new CountDownLatch(1);
            Thread computer = Thread.ofPlatform().start(() -> cache.compute(5L, (k, v) -> {
                computing.countDown();
                sleep(500);
                return "computed";
            }));
            // a load that waits for ever; the cache's close gives its caller the closed cache's exception
            Thread.ofPlatform().daemon().start(() -> cache.get(-1L, k -> {
                sleep(Long.MAX_VALUE);
                return "loaded";
            }));
            computing.await();
            System.out.println("in use");
            System.out.flush();
            switch (mode) {
                case "return" -> computer.join();
                case "exit", "exit-hook" -> {
                    Thread.ofPlatform().start(() -> System.exit(3));
                    Thread.sleep(Long.MAX_VALUE);
                }
                case "halt" -> Runtime.getRuntime().halt(4);
                default -> throw new IllegalArgumentException(mode);
            }
        }

        private static void sleep(long millis) {
            try {
                Thread.sleep(millis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
