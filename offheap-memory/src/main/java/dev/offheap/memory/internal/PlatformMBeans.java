package dev.offheap.memory.internal;

import java.lang.management.ManagementFactory;
import java.util.function.Function;
import javax.management.InstanceAlreadyExistsException;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * Registers the library's management beans with the platform MBean server under
 * {@code dev.offheap:type=<type>,name=<name>}, where two live objects of one name get {@code name},
 * {@code name-2}, {@code name-3} and so on, with no bound (a bound left the next object of a popular
 * name without a bean, and without a word). Registration is best effort: a failure is logged and the
 * object works without its bean. Not an API: the library's modules share it.
 */
public final class PlatformMBeans {
    private static final System.Logger LOG = System.getLogger(PlatformMBeans.class.getName());

    private PlatformMBeans() {
    }

    /**
     * @param type        the ObjectName's {@code type} key, e.g. {@code MemoryManager}
     * @param name        the object's name; the label registered is it or it with a {@code -N} suffix
     * @param alwaysQuote whether the label is always quoted in the ObjectName; otherwise only where it
     *                    holds a character an unquoted value may not
     * @param beanOfLabel makes the bean for the label it is registered under
     * @return the name the bean was registered under, or null if registration failed (logged)
     */
    public static ObjectName register(String type, String name, boolean alwaysQuote, Function<String, Object> beanOfLabel) {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        for (long attempt = 1; ; attempt++) {
            String label = attempt == 1 ? name : name + "-" + attempt;
            try {
                ObjectName objectName = new ObjectName("dev.offheap:type=" + type + ",name="
                        + (alwaysQuote ? ObjectName.quote(label) : objectNameValue(label)));
                server.registerMBean(beanOfLabel.apply(label), objectName);
                return objectName;
            } catch (InstanceAlreadyExistsException e) {
                // another live object has this name: try the next suffix
            } catch (JMException e) {
                LOG.log(System.Logger.Level.WARNING, "could not register the MBean of " + type + " '" + name + "'", e);
                return null;
            }
        }
    }

    /**
     * Unregisters a bean that {@link #register} registered; does nothing for null or a bean already gone.
     *
     * @param objectName what {@link #register} returned
     */
    public static void unregister(ObjectName objectName) {
        if (objectName == null) {
            return;
        }
        try {
            ManagementFactory.getPlatformMBeanServer().unregisterMBean(objectName);
        } catch (JMException e) {
            LOG.log(System.Logger.Level.DEBUG, "could not unregister " + objectName, e);
        }
    }

    /** @return the label as an ObjectName value: as is where that is legal, quoted where it is not */
    static String objectNameValue(String label) {
        for (int i = 0; i < label.length(); i++) {
            if (",=:\"*?\n".indexOf(label.charAt(i)) >= 0) {
                return ObjectName.quote(label);
            }
        }
        return label;
    }
}
