package dev.offheap.jcache.tck;

import javax.management.MBeanServerBuilder;
import javax.management.MBeanServerDelegate;

/**
 * Gives the platform MBean server the fixed agent id the JCache TCK looks it up by
 * ({@code org.jsr107.tck.management.agentId}); the provider registers its MXBeans in the platform server.
 * Installed with {@code -Djavax.management.builder.initial}.
 */
public final class TckMBeanServerBuilder extends MBeanServerBuilder {
    /** The agent id the surefire configuration passes to the TCK. */
    public static final String AGENT_ID = "OffHeapJCacheMBeanServer";

    @Override
    public MBeanServerDelegate newMBeanServerDelegate() {
        return new MBeanServerDelegate() {
            @Override
            public String getMBeanServerId() {
                return AGENT_ID;
            }
        };
    }
}
