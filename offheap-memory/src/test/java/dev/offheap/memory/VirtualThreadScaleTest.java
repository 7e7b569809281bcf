package dev.offheap.memory;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.ref.Reference;
import java.lang.ref.WeakReference;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The manager used by many short-lived threads, one per request as a server has them: what the per-thread
 * page caches keep once their threads have ended must not grow with the number of threads.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class VirtualThreadScaleTest {
    @TempDir
    Path tempDir;

    @Test
    void endedThreadsAreNotKeptByTheirEmptyPageCaches() throws Exception {
        // Before: every platform thread that touched the manager got a page cache that held its thread, and
        // caches of ended threads were forgotten only when a request found the budget short. A thread whose
        // cache ended empty (it took its pages in one batch and handed them on) holds no budget, so none
        // was ever short: 2,000 such threads left 2,000 caches and their Thread objects on the heap.
        Random random = new Random(10);
        int threads = 2_000;
        try (MemoryManager mm = MemoryManager.builder().registerMBean(false).leakReporter(report -> { })
                .totalSize(16L << 20).pageSize(4096).type(MemoryType.NATIVE).pageAccess(PageAccess.SHARED).build()) {
            List<WeakReference<Thread>> ended = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                int count = 2 + random.nextInt(3);
                AtomicReference<List<MemorySegment>> handedOver = new AtomicReference<>();
                Thread t = Thread.ofPlatform().start(() -> handedOver.set(mm.allocatePages("request", count)));
                t.join();
                ended.add(new WeakReference<>(t));
                t = null;
                assertThat(handedOver.get()).hasSize(count);
                mm.release(handedOver.get()); // the consumer, another thread, gives them back
            }
            assertThat(mm.usedBytes()).isZero();
            long kept = Long.MAX_VALUE;
            for (int attempt = 0; attempt < 20 && kept > 200; attempt++) {
                System.gc();
                Thread.sleep(20);
                kept = ended.stream().filter(ref -> ref.get() != null).count();
            }
            assertThat(kept).as("ended threads still reachable, of %d", threads).isLessThanOrEqualTo(200);
        }
    }

    @ParameterizedTest(name = "virtual: {0}")
    @ValueSource(booleans = {true, false})
    void aChunkKeptAtCloseForALiveThreadsPageIsFreedOnceThatThreadHasEnded(boolean virtual) throws Exception {
        // Before: close() kept the chunk of a page confined to a live thread until a cleaner saw the thread
        // unreachable, but left the page's lease, which holds the thread and its confined scope, in the closed
        // manager's table (and a platform thread's page cache, which holds it too): as long as the closed
        // manager was reachable (a field, a variable in scope) the thread was too, and the chunk was never freed. Seen here through a mapped file's lock, which
        // goes with its chunk: a new manager over the file was refused for good.
        Path file = tempDir.resolve("pages.bin");
        MemoryManager closed = MemoryManager.builder().registerMBean(false).leakReporter(report -> { })
                .totalSize(1 << 20).pageSize(4096).type(MemoryType.MAPPED).mappedFile(file).build();
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch closedNow = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread.Builder threads = virtual ? Thread.ofVirtual() : Thread.ofPlatform();
        Thread request = threads.start(() -> {
            try {
                MemorySegment page = closed.allocatePage("request");
                page.set(ValueLayout.JAVA_LONG, 0, 42L);
                holding.countDown();
                closedNow.await();
                // the page stays usable by its thread after close, until the thread releases it or ends
                assertThat(page.get(ValueLayout.JAVA_LONG, 0)).isEqualTo(42L);
                closed.release(page); // does nothing after close
            } catch (Throwable e) {
                failure.set(e);
            }
        });
        assertThat(holding.await(10, TimeUnit.SECONDS)).isTrue();
        closed.close();
        assertThatThrownBy(() -> MemoryManager.builder().registerMBean(false).totalSize(1 << 20).pageSize(4096)
                .type(MemoryType.MAPPED).mappedFile(file).build())
                .as("the chunk is kept while its page's thread runs").isInstanceOf(IllegalArgumentException.class);
        closedNow.countDown();
        assertThat(request.join(Duration.ofSeconds(10))).isTrue();
        assertThat(failure.get()).isNull();
        request = null;
        MemoryManager reopened = null;
        for (int attempt = 0; attempt < 100 && reopened == null; attempt++) {
            System.gc();
            Thread.sleep(20);
            try {
                reopened = MemoryManager.builder().registerMBean(false).totalSize(1 << 20).pageSize(4096)
                        .type(MemoryType.MAPPED).mappedFile(file).build();
            } catch (IllegalArgumentException stillInUse) {
                // the cleaner has not run yet
            }
        }
        try {
            assertThat(reopened).as("a manager over the file once the thread that held a page has ended").isNotNull();
        } finally {
            if (reopened != null) {
                reopened.close();
            }
            Reference.reachabilityFence(closed);
        }
    }
}
