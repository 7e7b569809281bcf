package dev.offheap.bench;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks the benchmark method that the others of its class are compared against in the reports:
 * every result row gets its ratio to the baseline run with the same parameters, in the same run.
 * One per benchmark class; a class without one is reported without ratios.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Baseline {
}
