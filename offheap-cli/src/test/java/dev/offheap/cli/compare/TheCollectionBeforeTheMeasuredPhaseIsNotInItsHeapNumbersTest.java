package dev.offheap.cli.compare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;
import org.junit.jupiter.api.Test;

/**
 * A variant JVM runs {@code System.gc()} and then starts its measured phase. The JVM tells its GC listeners
 * about a collection later, on another thread; when that notice came after the phase had begun, the
 * full collection before the phase counted as one in it: its heap before (the warmup's garbage) became the
 * phase's heap peak and its heap after the phase's "heap after GC (max)", in runs whose measured phase had
 * no collection at all.
 */
class TheCollectionBeforeTheMeasuredPhaseIsNotInItsHeapNumbersTest {
    @Test
    void aLateNoticeOfTheCollectionBeforeTheMeasuredPhaseCountsForNeitherHeapPeakNorHeapAfterGc() throws Exception {
        Set<String> heapPools = ManagementFactory.getMemoryPoolMXBeans().stream()
                .filter(p -> p.getType() == MemoryType.HEAP).map(MemoryPoolMXBean::getName).collect(Collectors.toSet());
        AtomicReference<Notification> held = new AtomicReference<>();
        AtomicLong heapBeforeIt = new AtomicLong(-1);
        CountDownLatch measuring = new CountDownLatch(1);
        CountDownLatch delivered = new CountDownLatch(1);
        // the listeners of a bean are told in the order they were added: this one holds the notice of the
        // System.gc() below until the measured phase has begun, the last one says when JvmMetrics has had it
        NotificationListener holder = (n, handback) -> {
            if (isSystemGc(n) && held.compareAndSet(null, n)) {
                var info = GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
                heapBeforeIt.set(info.getGcInfo().getMemoryUsageBeforeGc().entrySet().stream()
                        .filter(e -> heapPools.contains(e.getKey())).mapToLong(e -> e.getValue().getUsed()).sum());
                try {
                    measuring.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
        NotificationListener after = (n, handback) -> {
            if (n == held.get()) {
                delivered.countDown();
            }
        };
        List<NotificationEmitter> emitters = new ArrayList<>();
        for (GarbageCollectorMXBean b : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (b instanceof NotificationEmitter e) {
                emitters.add(e);
            }
        }
        emitters.forEach(e -> e.addNotificationListener(holder, null, null));
        try (JvmMetrics metrics = new JvmMetrics(false)) {
            metrics.start();
            emitters.forEach(e -> e.addNotificationListener(after, null, null));
            try {
                List<byte[]> garbage = new ArrayList<>();
                for (int i = 0; i < 64; i++) {
                    garbage.add(new byte[1 << 20]);
                }
                assertThat(garbage).hasSize(64);
                garbage = null;
                System.gc();
                metrics.beginMeasure();
                measuring.countDown();
                assumeTrue(delivered.await(10, TimeUnit.SECONDS), "the collector sent no notice of System.gc()");
                JvmMetrics.Snapshot s = metrics.endMeasure();
                assumeTrue(s.gcCycles() == 0, "a collection ran in the measured phase");
                assertThat(s.heapAfterGcMaxBytes()).as("no collection in the measured phase").isEqualTo(-1);
                assertThat(s.heapPeakBytes()).as("the heap before the collection that preceded the phase")
                        .isLessThan(heapBeforeIt.get());
            } finally {
                measuring.countDown();
                for (NotificationEmitter e : emitters) {
                    e.removeNotificationListener(after);
                    e.removeNotificationListener(holder);
                }
            }
        }
    }

    private static boolean isSystemGc(Notification n) {
        return n.getType().equals(GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION)
                && GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData()).getGcCause()
                        .equals("System.gc()");
    }
}
