package dev.offheap.bench;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a benchmark method that runs only where its {@link Precondition} holds. {@code offheap
 * bench} asks the precondition before it starts JMH and leaves the method out with the
 * precondition's message when it is unmet, so a missing optional library skips its benchmarks
 * instead of failing the whole run. Run through JMH directly, the benchmark's own setup must fail
 * with the same message.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Requires {
    /** @return the check; a class with a public no-argument constructor */
    Class<? extends Precondition> value();
}
