package dev.offheap.jcache;

import static org.assertj.core.api.Assertions.assertThat;

import dev.offheap.cache.EvictionPolicy;
import dev.offheap.cache.OffHeapCache;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Properties;
import java.util.Set;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.Caching;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.expiry.CreatedExpiryPolicy;
import javax.cache.expiry.Duration;
import javax.cache.spi.CachingProvider;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

/**
 * The Java example of README.md's "JCache (JSR-107)" section, run as written (with the page it leaves to
 * the reader filled in), and the plain-configuration sentence after it, checked against what the text says:
 * the provider is found through the ServiceLoader, values are stored by value, statistics are in the
 * platform MBean server, a sweep says how many expired entries it removed, a plain MutableConfiguration gets
 * 64 MiB or the manager's property.
 */
class ReadmeExamplesTest {

    @Test
    void theReadmesJCacheStoresByValueCountsStatisticsAndSweepsOnDemand() throws Exception {
        byte[] html = "<html><body>offers</body></html>".getBytes(StandardCharsets.UTF_8);
        CacheManager manager = Caching.getCachingProvider().getCacheManager();
        assertThat(manager.getCachingProvider()).isInstanceOf(OffHeapCachingProvider.class);
        OffHeapConfiguration<String, byte[]> config = new OffHeapConfiguration<String, byte[]>()
                .setCapacityBytes(256L << 20)                      // everything off the heap counted, tables included
                .setEvictionPolicy(EvictionPolicy.W_TINY_LFU)      // the default; LRU is the other choice
                .setCleanUpInterval(java.time.Duration.ofMinutes(1)); // sweep expired entries out in the background
        config.setTypes(String.class, byte[].class)                // built-in serializers for these types
              .setExpiryPolicyFactory(CreatedExpiryPolicy.factoryOf(Duration.TEN_MINUTES))
              .setStatisticsEnabled(true);                         // CacheStatisticsMXBean in the platform MBean server
        Cache<String, byte[]> cache = manager.createCache("readme-pages", config);
        try {
            cache.put("home", html);
            byte[] copy = cache.get("home");                           // stored by value: a fresh copy
            long swept = cache.unwrap(ExpiryCleanUp.class).cleanUp();  // or sweep on demand: returns how many expired entries it removed

            assertThat(copy).isEqualTo(html).isNotSameAs(html);
            assertThat(cache.get("home")).isNotSameAs(copy);
            assertThat(swept).as("nothing has expired within ten minutes").isZero();
            assertThat(cache.unwrap(OffHeapCache.class).capacityBytes()).isEqualTo(256L << 20);

            Set<ObjectName> beans = ManagementFactory.getPlatformMBeanServer()
                    .queryNames(new ObjectName("javax.cache:type=CacheStatistics,Cache=readme-pages,*"), null);
            assertThat(beans).hasSize(1);
            assertThat(ManagementFactory.getPlatformMBeanServer().getAttribute(beans.iterator().next(), "CacheHits"))
                    .isEqualTo(2L);
            assertThat(ManagementFactory.getPlatformMBeanServer().getAttribute(beans.iterator().next(), "CachePuts"))
                    .isEqualTo(1L);
        } finally {
            manager.destroyCache("readme-pages");
        }
    }

    @Test
    void aPlainMutableConfigurationGetsSixtyFourMebibytesOrTheManagersProperty() {
        CachingProvider provider = Caching.getCachingProvider();
        CacheManager manager = provider.getCacheManager();
        Cache<String, String> plain = manager.createCache("readme-plain",
                new MutableConfiguration<String, String>().setTypes(String.class, String.class));
        try {
            assertThat(plain.unwrap(OffHeapCache.class).capacityBytes()).isEqualTo(64L << 20);
        } finally {
            manager.destroyCache("readme-plain");
        }

        Properties properties = new Properties();
        properties.setProperty("dev.offheap.jcache.capacityBytes", String.valueOf(8L << 20));
        try (CacheManager sized = provider.getCacheManager(URI.create("readme-sized"), getClass().getClassLoader(), properties)) {
            Cache<String, String> cache = sized.createCache("readme-sized",
                    new MutableConfiguration<String, String>().setTypes(String.class, String.class));
            assertThat(cache.unwrap(OffHeapCache.class).capacityBytes()).isEqualTo(8L << 20);
        }
    }
}
