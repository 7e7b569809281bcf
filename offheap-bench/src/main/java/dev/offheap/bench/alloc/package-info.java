/**
 * The allocation shootout ({@code offheap bench alloc}): allocate + touch + free of 16 B to
 * 64 KiB, without and with zeroing, at one and two threads, of the library's allocators against
 * malloc, calloc and mimalloc through the Linker, the JDK's arenas, direct ByteBuffers, Netty's
 * pooled buffers and a bump allocator; and the fragmentation experiment. The goals the report
 * checks are declared with the suite in the CLI.
 */
package dev.offheap.bench.alloc;
