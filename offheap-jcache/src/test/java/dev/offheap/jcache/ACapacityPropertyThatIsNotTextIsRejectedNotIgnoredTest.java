package dev.offheap.jcache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.util.Properties;
import javax.cache.CacheManager;
import javax.cache.configuration.MutableConfiguration;
import org.junit.jupiter.api.Test;

/**
 * The cache manager's capacity property put into its {@code Properties} as a number
 * ({@code properties.put(CAPACITY_PROPERTY, 1L << 30)}) rather than as text: {@code getProperty} does not
 * see values that are not strings, so the setting was ignored without a word and every cache got the
 * default 64 MiB. It is refused now, like any other bad value of the property, naming it.
 */
class ACapacityPropertyThatIsNotTextIsRejectedNotIgnoredTest extends JCacheTestBase {

    @Test
    void aNumberPutAsThePropertyIsRefusedNamingThePropertyAndTheValue() {
        Properties properties = new Properties();
        properties.put(OffHeapConfiguration.CAPACITY_PROPERTY, 2L << 20);
        CacheManager sized = provider.getCacheManager(URI.create("numeric"), getClass().getClassLoader(), properties);

        assertThatThrownBy(() -> sized.createCache("c", new MutableConfiguration<String, String>()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(OffHeapConfiguration.CAPACITY_PROPERTY)
                .hasMessageContaining("2097152")
                .hasMessageContaining(Long.class.getName());
        assertThat(sized.getCache("c")).isNull();
    }
}
