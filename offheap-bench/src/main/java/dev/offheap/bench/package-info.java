/** JMH benchmarks of offheap, each with its baselines in the same run. */
package dev.offheap.bench;
