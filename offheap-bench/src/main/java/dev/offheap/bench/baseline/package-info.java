/**
 * What only the third-party baselines' forks need (Flink, OHC, Netty): kept here, in one place, so
 * that no benchmark of the library's own code runs with it.
 */
package dev.offheap.bench.baseline;
