/**
 * {@code offheap serve}: the offer service of {@code offheap compare} over HTTP
 * ({@link dev.offheap.cli.serve.OfferServer}, on the JDK's {@code com.sun.net.httpserver}), for load
 * generators such as wrk or JMeter.
 */
package dev.offheap.cli.serve;
