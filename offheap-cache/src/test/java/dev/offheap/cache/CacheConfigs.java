package dev.offheap.cache;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/** The matrix of configurations the behaviour suite runs over: policy x stats x expiry x concurrency. */
final class CacheConfigs {
    private CacheConfigs() {
    }

    /** One configuration, applied to a builder; named for test reports. */
    record Config(String name, EvictionPolicy policy, boolean stats, String expiry, int concurrency)
            implements Consumer<CacheBuilder<?, ?>> {
        @Override
        public void accept(CacheBuilder<?, ?> builder) {
            builder.evictionPolicy(policy).recordStats(stats).concurrencyLevel(concurrency);
            switch (expiry) {
                case "write" -> builder.expireAfterWrite(Duration.ofHours(1));
                case "access" -> builder.expireAfterAccess(Duration.ofHours(1));
                case "both" -> builder.expireAfterWrite(Duration.ofHours(2)).expireAfterAccess(Duration.ofHours(1));
                default -> {
                }
            }
        }

        @Override
        public String toString() {
            return name;
        }
    }

    static List<Config> all() {
        List<Config> configs = new ArrayList<>();
        for (EvictionPolicy policy : EvictionPolicy.values()) {
            for (boolean stats : new boolean[]{true, false}) {
                for (String expiry : new String[]{"none", "write", "access", "both"}) {
                    for (int concurrency : new int[]{1, 16}) {
                        configs.add(new Config(policy + "/stats=" + stats + "/expiry=" + expiry + "/segments=" + concurrency,
                                policy, stats, expiry, concurrency));
                    }
                }
            }
        }
        return configs;
    }
}
