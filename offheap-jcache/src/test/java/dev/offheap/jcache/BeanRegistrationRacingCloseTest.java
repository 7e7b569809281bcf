package dev.offheap.jcache;

import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.cache.Cache;
import javax.management.MBeanServer;
import javax.management.ObjectName;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/** What the JCache layer shows in JMX: its beans' lifetimes against a close running at the same time. */
class BeanRegistrationRacingCloseTest extends JCacheTestBase {
    private static final MBeanServer SERVER = ManagementFactory.getPlatformMBeanServer();

    private ObjectName beanName(String type, String cacheName) throws Exception {
        return new ObjectName("javax.cache:type=" + type + ",CacheManager="
                + manager.getURI().toString().replaceAll("[,:=\n\"*?]", ".") + ",Cache=" + cacheName);
    }

    /**
     * {@code enableStatistics}/{@code enableManagement} racing the cache's {@code close()}: the beans must be
     * gone once both return. A switch that found the cache open but registered after close() had unregistered
     * left the closed cache's beans in the platform server for good: they kept it reachable, and a new cache
     * of that name found the names taken and got none.
     */
    @Test
    void switchingStatisticsOrManagementOnWhileTheCacheClosesLeavesNoBean() {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
                for (int i = 0; i < 3000; i++) {
                    String name = "race-" + i;
                    Cache<String, String> cache = manager.createCache(name,
                            small(String.class, String.class).setCapacityBytes(256 << 10));
                    ObjectName statistics = beanName("CacheStatistics", name);
                    ObjectName configuration = beanName("CacheConfiguration", name);
                    CyclicBarrier start = new CyclicBarrier(2);
                    Future<?> enable = pool.submit(() -> {
                        start.await();
                        manager.enableStatistics(name, true);
                        manager.enableManagement(name, true);
                        return null;
                    });
                    Future<?> close = pool.submit(() -> {
                        start.await();
                        cache.close();
                        return null;
                    });
                    enable.get();
                    close.get();
                    assertThat(SERVER.isRegistered(statistics)).as("statistics bean of closed cache %s", name).isFalse();
                    assertThat(SERVER.isRegistered(configuration)).as("configuration bean of closed cache %s", name)
                            .isFalse();
                }
            });
        } finally {
            pool.shutdownNow();
        }
    }
}
