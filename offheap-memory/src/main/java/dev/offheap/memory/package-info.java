/**
 * Memory outside the Java heap, accounted and safe.
 *
 * <ul>
 *   <li>{@link dev.offheap.memory.Budget}: limits and use in bytes, nested process, component, request.</li>
 *   <li>{@link dev.offheap.memory.MemoryManager}: fixed-size pages for owners, on heap, native or mapped,
 *       that cannot be reached after release.</li>
 *   <li>{@link dev.offheap.memory.Segments}: compare, swap, hash and big-endian access on pages,
 *       fast whatever mix of heap, native and mapped segments a program uses.</li>
 * </ul>
 */
package dev.offheap.memory;
