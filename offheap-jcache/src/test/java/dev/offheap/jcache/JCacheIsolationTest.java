package dev.offheap.jcache;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.Serial;
import java.io.Serializable;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import javax.cache.Cache;
import javax.cache.configuration.CacheEntryListenerConfiguration;
import javax.cache.configuration.CompleteConfiguration;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.configuration.MutableCacheEntryListenerConfiguration;
import javax.cache.event.CacheEntryEvent;
import javax.cache.event.CacheEntryRemovedListener;
import javax.cache.event.CacheEntryUpdatedListener;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

/**
 * What one cache, caller or listener must not change for another: MBean names that collide, an
 * iterator entry's key changed in place, a listener configuration changed after registration, and the old
 * value a get-and-change returns shared with the listeners' events.
 */
class JCacheIsolationTest extends JCacheTestBase {
    private static final MBeanServer SERVER = ManagementFactory.getPlatformMBeanServer();

    private ObjectName beanName(String type, String sanitizedCacheName) throws Exception {
        return new ObjectName("javax.cache:type=" + type + ",CacheManager="
                + manager.getURI().toString().replaceAll("[,:=\n\"*?]", ".") + ",Cache=" + sanitizedCacheName);
    }

    @Test
    void closingOrSwitchingOffACacheLeavesTheMBeansOfAnotherCacheWhoseNameBecomesTheSame() throws Exception {
        // "a.b", "a,b" and "a:b" all become Cache=a.b: the first cache's beans hold the names
        Cache<String, String> dot = manager.createCache("a.b",
                small(String.class, String.class).setStatisticsEnabled(true).setManagementEnabled(true));
        ObjectName statistics = beanName("CacheStatistics", "a.b");
        ObjectName configuration = beanName("CacheConfiguration", "a.b");
        dot.get("missing");

        manager.createCache("a,b", small(String.class, String.class).setStatisticsEnabled(true)
                .setManagementEnabled(true));
        manager.enableStatistics("a,b", false);
        manager.enableManagement("a,b", false);
        assertThat(SERVER.isRegistered(statistics)).as("statistics off for a,b").isTrue();
        assertThat(SERVER.isRegistered(configuration)).as("management off for a,b").isTrue();
        manager.destroyCache("a,b");
        assertThat(SERVER.isRegistered(statistics)).as("a,b destroyed").isTrue();
        assertThat(SERVER.isRegistered(configuration)).as("a,b destroyed").isTrue();

        Cache<String, String> colon = manager.createCache("a:b",
                small(String.class, String.class).setStatisticsEnabled(true));
        colon.close();
        assertThat(SERVER.isRegistered(statistics)).as("a:b closed").isTrue();
        // and the bean still there is a.b's own
        assertThat(SERVER.getAttribute(statistics, "CacheMisses")).isEqualTo(1L);

        dot.close();
        assertThat(SERVER.isRegistered(statistics)).isFalse();
        assertThat(SERVER.isRegistered(configuration)).isFalse();
    }

    @Test
    void aCacheWhoseMBeanNameIsTakenByAnotherCacheIsToldInAWarning() throws Exception {
        List<LogRecord> warnings = new CopyOnWriteArrayList<>();
        Handler capture = new Handler() {
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
        Logger log = Logger.getLogger("dev.offheap.jcache.internal.MBeans");
        log.addHandler(capture);
        try {
            manager.createCache("x.y", small(String.class, String.class).setStatisticsEnabled(true));
            assertThat(warnings).as("the first cache of the name").isEmpty();
            manager.createCache("x?y", small(String.class, String.class).setStatisticsEnabled(true));
            assertThat(warnings).singleElement().satisfies(r -> assertThat(r.getMessage())
                    .contains(beanName("CacheStatistics", "x.y").toString())
                    .contains("already registered for another cache"));
        } finally {
            log.removeHandler(capture);
        }
    }

    @Test
    void iteratorRemoveRemovesTheEntryNextReturnedAfterTheCallerChangedItsKeyInPlace() {
        Random random = new Random(42);
        Cache<byte[], String> bytes = manager.createCache("bytes", small(byte[].class, String.class));
        @SuppressWarnings({"unchecked", "rawtypes"})
        Class<ArrayList<Integer>> listType = (Class) ArrayList.class; // Java-serialized, mutable keys
        Cache<ArrayList<Integer>, String> lists = manager.createCache("lists", small(listType, String.class));
        for (int i = 0; i < 20; i++) {
            bytes.put(new byte[] {(byte) i}, "v" + i);
            lists.put(new ArrayList<>(List.of(i)), "v" + i);
        }
        int removeAt = random.nextInt(20);

        Iterator<Cache.Entry<byte[], String>> byteEntries = bytes.iterator();
        for (int i = 0; i < removeAt; i++) {
            byteEntries.next();
        }
        Cache.Entry<byte[], String> byteEntry = byteEntries.next();
        byte returned = byteEntry.getKey()[0];
        byteEntry.getKey()[0] = (byte) ((returned + 1) % 20); // the caller's copy: the cache must not care
        byteEntries.remove();
        assertThat(bytes.containsKey(new byte[] {returned})).as("the entry next() returned").isFalse();
        assertThat(bytes.containsKey(new byte[] {(byte) ((returned + 1) % 20)})).as("another entry").isTrue();

        Iterator<Cache.Entry<ArrayList<Integer>, String>> listEntries = lists.iterator();
        for (int i = 0; i < removeAt; i++) {
            listEntries.next();
        }
        Cache.Entry<ArrayList<Integer>, String> listEntry = listEntries.next();
        int returnedList = listEntry.getKey().get(0);
        listEntry.getKey().set(0, (returnedList + 1) % 20);
        listEntries.remove();
        assertThat(lists.containsKey(new ArrayList<>(List.of(returnedList)))).as("the entry next() returned").isFalse();
        assertThat(lists.containsKey(new ArrayList<>(List.of((returnedList + 1) % 20)))).as("another entry").isTrue();
    }

    /** Every event it gets, with old values as delivered; changes each old value it gets in place. */
    public static final class Recording implements CacheEntryUpdatedListener<String, byte[]>,
            CacheEntryRemovedListener<String, byte[]>, Serializable {
        @Serial
        private static final long serialVersionUID = 1L;
        static final List<CacheEntryEvent<? extends String, ? extends byte[]>> EVENTS = new CopyOnWriteArrayList<>();

        @Override
        public void onUpdated(Iterable<CacheEntryEvent<? extends String, ? extends byte[]>> events) {
            record(events);
        }

        @Override
        public void onRemoved(Iterable<CacheEntryEvent<? extends String, ? extends byte[]>> events) {
            record(events);
        }

        private static void record(Iterable<CacheEntryEvent<? extends String, ? extends byte[]>> events) {
            for (CacheEntryEvent<? extends String, ? extends byte[]> event : events) {
                EVENTS.add(event);
                byte[] old = event.getOldValue();
                if (old != null) {
                    old[0] = -1;
                }
            }
        }
    }

    @Test
    void changingAListenerConfigurationAfterRegistrationDoesNotChangeTheListener() {
        Recording.EVENTS.clear();
        MutableCacheEntryListenerConfiguration<String, byte[]> withoutOld = new MutableCacheEntryListenerConfiguration<>(
                FactoryBuilder.factoryOf(Recording.class), null, false, true);
        Cache<String, byte[]> cache = manager.createCache("listened",
                small(String.class, byte[].class).addCacheEntryListenerConfiguration(withoutOld));
        // the configuration handed to createCache: the manager copies it, so this is no change of the cache
        withoutOld.setOldValueRequired(true);
        // nor is a change of the copy the cache reports ("changing it changes neither the cache ...")
        @SuppressWarnings("unchecked")
        CompleteConfiguration<String, byte[]> reported = cache.getConfiguration(CompleteConfiguration.class);
        for (CacheEntryListenerConfiguration<String, byte[]> listener : reported.getCacheEntryListenerConfigurations()) {
            ((MutableCacheEntryListenerConfiguration<String, byte[]>) listener).setOldValueRequired(true);
        }

        cache.put("k", new byte[] {1});
        cache.put("k", new byte[] {2});
        assertThat(Recording.EVENTS).hasSize(1);
        assertThat(Recording.EVENTS.get(0).isOldValueAvailable()).isFalse();
        assertThat(Recording.EVENTS.get(0).getOldValue()).isNull();
    }

    @Test
    void theOldValueAGetAndChangeReturnsIsNotTheOneItsListenersGet() {
        Recording.EVENTS.clear();
        Cache<String, byte[]> cache = manager.createCache("getAnd", small(String.class, byte[].class)
                .addCacheEntryListenerConfiguration(new MutableCacheEntryListenerConfiguration<>(
                        FactoryBuilder.factoryOf(Recording.class), null, true, true)));
        cache.put("k", new byte[] {1});

        // the synchronous listener sets each old value's first byte to -1 before the call returns
        assertThat(cache.getAndPut("k", new byte[] {2})).containsExactly(1);
        assertThat(cache.getAndReplace("k", new byte[] {3})).containsExactly(2);
        assertThat(cache.getAndRemove("k")).containsExactly(3);
        assertThat(Recording.EVENTS).hasSize(3);
    }
}
