package dev.offheap.cache;

import dev.offheap.cache.internal.OffHeapCacheImpl;
import dev.offheap.cache.micrometer.OffHeapCacheMetrics;
import dev.offheap.memory.Budget;
import dev.offheap.memory.MemoryManager;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.lang.ref.WeakReference;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A cache the application drops without closing it: nothing of the library keeps it reachable (not its
 * MBean, not a memory manager, not its scheduled clean-up), and once the collector finds it a cleaner
 * gives back its native memory, its reservation and its MBean, with a warning naming it.
 */
class UnclosedCacheTest {
    private static final long CAPACITY = 4L << 20;
    private static final Logger RESOURCES_LOG = Logger.getLogger("dev.offheap.cache.internal.NativeResources");

    private final List<LogRecord> warnings = new CopyOnWriteArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
                warnings.add(record);
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @BeforeEach
    void captureWarnings() {
        RESOURCES_LOG.addHandler(capture);
    }

    @AfterEach
    void stopCapturing() {
        RESOURCES_LOG.removeHandler(capture);
    }

    @Test
    void aCacheNeverClosedGivesBackItsBudgetAndMBeanOnceUnreachable() throws Exception {
        Budget budget = Budget.root("unclosed-test", 64L << 20);
        WeakReference<OffHeapCache<String, String>> cache = new WeakReference<>(build("never-closed-budget",
                OffHeapCache.builder(Serializer.strings(), Serializer.strings()).budget(budget)
                        .cleanUpInterval(java.time.Duration.ofMillis(5))));
        ObjectName mbean = mbeanOf(cache.get());
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        assertThat(server.getAttribute(mbean, "EntryCount")).isEqualTo(100L);
        assertThat(budget.used()).isEqualTo(CAPACITY);

        assertThat(collectUntil(() -> budget.used() == 0)).as("budget given back").isTrue();
        assertThat(cache.get()).isNull();
        assertThat(collectUntil(() -> !server.isRegistered(mbean))).as("MBean unregistered").isTrue();
        assertThat(warnings).anySatisfy(w -> assertThat(w.getMessage())
                .contains("cache 'never-closed-budget' was never closed").contains(CAPACITY + " bytes"));
    }

    @Test
    void aCacheNeverClosedGivesBackItsMemoryManagerReservation() {
        try (MemoryManager manager = MemoryManager.builder().totalSize(32L << 20).pageSize(32 * 1024)
                .registerMBean(false).build()) {
            WeakReference<OffHeapCache<String, String>> cache = new WeakReference<>(build("never-closed-manager",
                    OffHeapCache.builder(Serializer.strings(), Serializer.strings()).memoryManager(manager)));
            assertThat(manager.usedBytes()).isEqualTo(CAPACITY);

            assertThat(collectUntil(() -> manager.usedBytes() == 0)).as("reservation given back").isTrue();
            assertThat(cache.get()).isNull();
            assertThat(warnings).anySatisfy(w -> assertThat(w.getMessage())
                    .contains("cache 'never-closed-manager' was never closed"));
        }
    }

    @Test
    void aClosedCacheIsReleasedOnceAndWithoutAWarning() throws Exception {
        Budget budget = Budget.root("closed-test", 64L << 20);
        WeakReference<OffHeapCache<String, String>> cache = new WeakReference<>(build("closed-then-dropped",
                OffHeapCache.builder(Serializer.strings(), Serializer.strings()).budget(budget)));
        ObjectName mbean = mbeanOf(cache.get());
        cache.get().close();
        assertThat(budget.used()).isZero();
        assertThat(ManagementFactory.getPlatformMBeanServer().isRegistered(mbean)).isFalse();

        // the cleaner has nothing left to run once close() ran it: collecting the cache releases nothing twice
        assertThat(collectUntil(() -> cache.get() == null)).isTrue();
        System.gc();
        Thread.sleep(50);
        assertThat(budget.used()).isZero();
        assertThat(warnings).noneSatisfy(w -> assertThat(w.getMessage()).contains("closed-then-dropped"));
    }

    @Test
    void aCacheInUseIsNotReleased() throws Exception {
        Budget budget = Budget.root("kept-test", 64L << 20);
        OffHeapCache<String, String> cache = build("kept", OffHeapCache.builder(Serializer.strings(),
                Serializer.strings()).budget(budget));
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(20);
        }
        assertThat(budget.used()).isEqualTo(CAPACITY);
        assertThat(cache.getIfPresent("k7")).isEqualTo("v7");
        // a collection during a zero-copy read leaves the value readable
        long size = cache.read("k8", segment -> {
            System.gc();
            return segment.byteSize();
        });
        assertThat(size).isEqualTo(2L);
        cache.close();
        assertThat(budget.used()).isZero();
    }

    @Test
    void aCacheBoundToMicrometerIsStillCollected() {
        Budget budget = Budget.root("micrometer-test", 64L << 20);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        OffHeapCache<String, String> bound = build("bound-to-micrometer",
                OffHeapCache.builder(Serializer.strings(), Serializer.strings()).budget(budget));
        new OffHeapCacheMetrics(bound, "bound", Tags.empty()).bindTo(registry);
        assertThat(registry.get("cache.size").gauge().value()).isEqualTo(100.0);
        WeakReference<OffHeapCache<String, String>> cache = new WeakReference<>(bound);
        bound = null;

        assertThat(collectUntil(() -> budget.used() == 0)).as("budget given back").isTrue();
        assertThat(cache.get()).isNull();
        assertThat(registry.get("cache.size").gauge().value()).isNaN();
    }

    @Test
    void aBuildThatFailsLeavesNothingReserved() {
        Budget budget = Budget.root("failed-build", 64L << 20);
        CacheBuilder<String, String> builder = OffHeapCache.builder(Serializer.strings(), Serializer.strings())
                .capacity(CAPACITY).budget(budget).clock(() -> {
                    throw new IllegalStateException("clock failure");
                });
        assertThatThrownBy(builder::build).hasMessage("clock failure");
        assertThat(budget.used()).isZero();
    }

    /** Builds a cache of {@link #CAPACITY} with 100 entries; the caller keeps the only reference. */
    private static OffHeapCache<String, String> build(String name, CacheBuilder<String, String> builder) {
        OffHeapCache<String, String> cache = builder.capacity(CAPACITY).name(name).build();
        for (int i = 0; i < 100; i++) {
            cache.put("k" + i, "v" + i);
        }
        return cache;
    }

    private static ObjectName mbeanOf(OffHeapCache<?, ?> cache) {
        return ((OffHeapCacheImpl<?, ?>) cache).mbeanName();
    }

    /** Asks for collections until the condition holds, for at most 30 seconds. */
    static boolean collectUntil(BooleanSupplier condition) {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            System.gc();
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }
}
