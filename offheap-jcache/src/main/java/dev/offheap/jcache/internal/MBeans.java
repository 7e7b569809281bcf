package dev.offheap.jcache.internal;

import java.lang.management.ManagementFactory;
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
    /** Characters an unquoted ObjectName value may not hold. */
    private static final Pattern RESERVED = Pattern.compile("[,:=\n\"*?]");

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

    static void register(Object bean, ObjectName name) {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        try {
            if (!server.isRegistered(name)) {
                server.registerMBean(bean, name);
            }
        } catch (InstanceAlreadyExistsException e) {
            // Another thread registered the same cache's bean in between: the name is taken, as wanted.
        } catch (MBeanRegistrationException | NotCompliantMBeanException e) {
            throw new CacheException("cannot register MBean " + name, e);
        }
    }

    static void unregister(ObjectName name) {
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
