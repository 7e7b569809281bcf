package dev.offheap.jcache;

import java.io.Serializable;
import javax.cache.expiry.Duration;
import javax.cache.expiry.ExpiryPolicy;

/**
 * An expiry policy whose creation expiry each thread sets for itself ({@link #set}): JCache asks the
 * policy on the thread that writes, so tests give entries different lifetimes without a clock of their
 * own. Access and update keep the expiry time.
 */
public final class PerThreadCreationExpiry implements ExpiryPolicy, Serializable {
    private static final long serialVersionUID = 1L;
    private static final ThreadLocal<Duration> CREATION = ThreadLocal.withInitial(() -> Duration.ETERNAL);

    /** For {@code FactoryBuilder.factoryOf(PerThreadCreationExpiry.class)}, which instantiates it. */
    public PerThreadCreationExpiry() {
    }

    /** @param creation how long what the calling thread creates from now on lives */
    static void set(Duration creation) {
        CREATION.set(creation);
    }

    @Override
    public Duration getExpiryForCreation() {
        return CREATION.get();
    }

    @Override
    public Duration getExpiryForAccess() {
        return null;
    }

    @Override
    public Duration getExpiryForUpdate() {
        return null;
    }
}
