package dev.offheap.jcache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InvalidObjectException;
import java.io.ObjectInputStream;
import java.io.Serial;
import java.io.Serializable;
import java.lang.management.ManagementFactory;
import java.util.Set;
import javax.cache.Cache;
import javax.management.ObjectName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A get whose entry is live but whose value cannot be deserialized (a class changed incompatibly, a
 * {@code readObject} that throws) fails, and counts no hit: it served nothing. It counted a hit before the
 * value was read, so the statistics claimed gets served that had thrown.
 */
class AValueThatCannotBeReadCountsNoHitTest extends JCacheTestBase {

    /** A value whose deserialization throws while {@link #unreadable} is set, if its text starts with "bad". */
    public static final class Fragile implements Serializable {
        @Serial
        private static final long serialVersionUID = 1L;
        static volatile boolean unreadable;
        final String text;

        Fragile(String text) {
            this.text = text;
        }

        @Serial
        private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
            in.defaultReadObject();
            if (unreadable && text.startsWith("bad")) {
                throw new InvalidObjectException("this version cannot read it");
            }
        }
    }

    @AfterEach
    void readable() {
        Fragile.unreadable = false;
    }

    private float attribute(String cacheName, String attribute) throws Exception {
        ObjectName statistics = new ObjectName("javax.cache:type=CacheStatistics,CacheManager="
                + manager.getURI().toString().replaceAll("[,:=\n\"*?]", ".") + ",Cache=" + cacheName);
        return ((Number) ManagementFactory.getPlatformMBeanServer().getAttribute(statistics, attribute)).floatValue();
    }

    @Test
    void aGetOrGetAllThatCannotReadTheValueCountsNothing() throws Exception {
        OffHeapConfiguration<String, Fragile> configuration = small(String.class, Fragile.class);
        configuration.setStatisticsEnabled(true);
        Cache<String, Fragile> cache = manager.createCache("fragile", configuration);
        cache.put("k", new Fragile("bad v"));
        cache.put("readable", new Fragile("w"));
        Fragile.unreadable = true;

        assertThatThrownBy(() -> cache.get("k")).hasStackTraceContaining("this version cannot read it");
        assertThatThrownBy(() -> cache.getAll(Set.of("k"))).hasStackTraceContaining("this version cannot read it");
        // whichever the getAll reads first: the readable one's hit is not counted for a getAll that threw
        assertThatThrownBy(() -> cache.getAll(Set.of("readable", "k", "absent")))
                .hasStackTraceContaining("this version cannot read it");

        assertThat(attribute("fragile", "CacheHits")).isZero();
        assertThat(attribute("fragile", "CacheMisses")).isZero();
        assertThat(attribute("fragile", "CacheGets")).isZero();
        assertThat(attribute("fragile", "AverageGetTime")).isZero();

        Fragile.unreadable = false;
        assertThat(cache.get("k").text).isEqualTo("bad v");
        assertThat(cache.getAll(Set.of("readable", "absent"))).containsOnlyKeys("readable");
        assertThat(attribute("fragile", "CacheHits")).isEqualTo(2f);
        assertThat(attribute("fragile", "CacheMisses")).isEqualTo(1f);
    }
}
