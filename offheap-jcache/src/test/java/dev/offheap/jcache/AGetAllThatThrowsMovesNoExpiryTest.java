package dev.offheap.jcache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.offheap.jcache.AValueThatCannotBeReadCountsNoHitTest.Fragile;
import java.util.LinkedHashSet;
import java.util.List;
import javax.cache.Cache;
import javax.cache.configuration.FactoryBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A getAll that throws because a stored value cannot be deserialized served nothing: it applies no access
 * expiry, to the keys read before the unreadable one either. It renewed theirs (here: expired them, the
 * access expiry being zero) and then threw, as if it had served them. JCache 1.1.1 does not make getAll
 * atomic, but it counts no hit for them either (AValueThatCannotBeReadCountsNoHitTest).
 */
class AGetAllThatThrowsMovesNoExpiryTest extends JCacheTestBase {

    @AfterEach
    void readable() {
        Fragile.unreadable = false;
    }

    @Test
    void theKeysReadBeforeTheUnreadableOneKeepTheirExpiry() {
        OffHeapConfiguration<String, Fragile> configuration = small(String.class, Fragile.class);
        // entries live for good until read, and expire at their first read
        configuration.setExpiryPolicyFactory(
                FactoryBuilder.factoryOf(OffHeapCachingProviderTest.ExpireOnAccess.class));
        Cache<String, Fragile> cache = manager.createCache("expires-when-read", configuration);
        cache.put("first", new Fragile("readable"));
        cache.put("second", new Fragile("readable too"));
        cache.put("k", new Fragile("bad v"));
        Fragile.unreadable = true;

        assertThatThrownBy(() -> cache.getAll(new LinkedHashSet<>(List.of("first", "second", "k", "absent"))))
                .hasStackTraceContaining("this version cannot read it");

        assertThat(cache.containsKey("first")).isTrue();
        assertThat(cache.containsKey("second")).isTrue();
        assertThat(cache.containsKey("k")).isTrue();
        // a getAll that reads them is an access: they expire
        assertThat(cache.getAll(new LinkedHashSet<>(List.of("first", "second")))).containsOnlyKeys("first", "second");
        assertThat(cache.containsKey("first")).isFalse();
        assertThat(cache.containsKey("second")).isFalse();
    }
}
