/**
 * {@code offheap compare}: the seed's offer service (an {@link dev.offheap.cli.compare.OfferService} with
 * an {@link dev.offheap.cli.compare.OfferCache} in front of an {@link dev.offheap.cli.compare.OfferStore})
 * run with each cache {@link dev.offheap.cli.compare.Variant} in its own JVM
 * ({@link dev.offheap.cli.compare.VariantLauncher} starts {@link dev.offheap.cli.compare.CompareWorker}),
 * measured by {@link dev.offheap.cli.compare.JvmMetrics} and reported by
 * {@link dev.offheap.cli.compare.CompareReport} and {@link dev.offheap.cli.compare.CompareCharts}.
 * The method and the metrics: {@code docs/compare.md}.
 */
package dev.offheap.cli.compare;
