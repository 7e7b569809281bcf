package dev.offheap.jcache.internal;

import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Pattern;
import javax.cache.CacheException;
import javax.management.InstanceAlreadyExistsException;
import javax.management.InstanceNotFoundException;
import javax.management.MBeanRegistrationException;
import javax.management.MBeanServer;
import javax.management.MalformedObjectNameException;
import javax.management.NotCompliantMBeanException;
import javax.management.ObjectName;

/**
 * Registers caches' MXBeans in the platform MBean server under the names JCache prescribes:
 * {@code javax.cache:type=CacheStatistics|CacheConfiguration,CacheManager=<uri>,Cache=<name>}.
 */
final class MBeans {
    private static final System.Logger LOG = System.getLogger(MBeans.class.getName());
    /** Characters an unquoted ObjectName value may not hold. */
    private static final Pattern RESERVED = Pattern.compile("[,:=\n\"*?]");
    /**
     * The bean registered here under each name. Names can collide (cache names {@code a.b} and {@code a,b}
     * both become {@code a.b}; two managers of one URI): only the first cache's bean is registered, and
     * only that cache may unregister it, or closing the other cache would take away a bean still in use.
     * Guarded by the class.
     */
    private static final Map<ObjectName, Object> OWNERS = new HashMap<>();

    private MBeans() {
    }

    static ObjectName name(String type, String managerUri, String cacheName) {
        String text = "javax.cache:type=" + type + ",CacheManager=" + sanitize(managerUri) + ",Cache="
                + sanitize(cacheName);
        try {
            return new ObjectName(text);
        } catch (MalformedObjectNameException e) {
            throw new CacheException("bad MBean name " + text, e);
        }
    }

    private static String sanitize(String value) {
        return value == null ? "" : RESERVED.matcher(value).replaceAll(".");
    }

    /** Registers {@code bean} under {@code name}, unless that name is taken (by it or another bean). */
    static synchronized void register(Object bean, ObjectName name) {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        try {
            if (!server.isRegistered(name)) {
                server.registerMBean(bean, name);
                OWNERS.put(name, bean);
            } else if (OWNERS.get(name) != bean) {
                warnTaken(name);
            }
        } catch (InstanceAlreadyExistsException e) {
            // Registered in between from outside this class (another copy of the provider): the name is taken.
            warnTaken(name);
        } catch (MBeanRegistrationException | NotCompliantMBeanException e) {
            throw new CacheException("cannot register MBean " + name, e);
        }
    }

    /**
     * The user would otherwise find another cache's numbers under the name they look up, with nothing to
     * say so: names collide silently (see {@link #OWNERS}).
     */
    private static void warnTaken(ObjectName name) {
        LOG.log(System.Logger.Level.WARNING, "MBean " + name + " is already registered for another cache (cache"
                + " names that differ only in the characters ,:=*?\" and newline, which become '.', share one name;"
                + " so do caches of two managers of one URI): this cache's bean is not registered");
    }

    /** Unregisters {@code name} if {@code bean} is what this class registered under it; else leaves it. */
    static synchronized void unregister(Object bean, ObjectName name) {
        if (OWNERS.get(name) != bean) {
            return; // another cache's bean (or none): its own cache unregisters it
        }
        OWNERS.remove(name);
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        try {
            if (server.isRegistered(name)) {
                server.unregisterMBean(name);
            }
        } catch (InstanceNotFoundException e) {
            // Already gone: unregistered concurrently.
        } catch (MBeanRegistrationException e) {
            throw new CacheException("cannot unregister MBean " + name, e);
        }
    }
}
