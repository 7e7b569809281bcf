package dev.offheap.memory;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** MAPPED memory in /dev/shm, shared access; skipped where /dev/shm does not exist. */
class MemoryManagerMappedShmTest extends MemoryManagerConformanceTest {
    private static final AtomicInteger FILES = new AtomicInteger();
    private static Path shmDir;

    @BeforeAll
    static void createDirectory() throws IOException {
        Path shm = Path.of("/dev/shm");
        assumeTrue(Files.isDirectory(shm) && Files.isWritable(shm), "/dev/shm is not available");
        shmDir = Files.createTempDirectory(shm, "offheap-test-");
    }

    @AfterAll
    static void deleteDirectory() throws IOException {
        if (shmDir != null) {
            try (Stream<Path> files = Files.walk(shmDir)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    @Override
    MemoryManager.Builder configure(MemoryManager.Builder builder) {
        return builder.type(MemoryType.MAPPED).pageAccess(PageAccess.SHARED)
                .mappedFile(shmDir.resolve("pages-" + FILES.incrementAndGet() + ".bin"));
    }
}
