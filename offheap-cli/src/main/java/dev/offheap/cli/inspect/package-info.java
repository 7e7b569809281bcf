/**
 * {@code offheap inspect}: attaches to a running JVM and shows its off-heap memory: the offheap
 * library's memory managers and caches (read from their MBeans), the JDK's direct and mapped buffers,
 * native memory tracking and the process's resident set ({@link dev.offheap.cli.inspect.Snapshot}).
 */
package dev.offheap.cli.inspect;
