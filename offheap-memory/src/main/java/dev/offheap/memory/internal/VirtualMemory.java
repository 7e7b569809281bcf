package dev.offheap.memory.internal;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Locale;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * {@code mmap}, {@code mprotect}, {@code madvise} and {@code munmap} through {@link Linker}, for
 * the pooled allocator's address range and the library's large regions: reserved inaccessible ({@code PROT_NONE}, which costs no
 * memory and no commit charge), made readable and writable as it is used, and given back to the
 * system with {@code MADV_DONTNEED} (the pages stay mapped and read as zero, so a stale segment can
 * never fault the JVM). Not an API: the library's modules share it.
 */
public final class VirtualMemory {
    private static final int PROT_NONE = 0;
    private static final int PROT_READ_WRITE = 0x1 | 0x2;
    private static final int MAP_PRIVATE = 0x02;
    public static final boolean LINUX = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux");
    /** MAP_ANONYMOUS is 0x20 on Linux (x86-64, aarch64) and 0x1000 on macOS and the BSDs. */
    private static final int MAP_ANONYMOUS = LINUX ? 0x20 : 0x1000;
    /** MADV_DONTNEED: 4 on both. */
    private static final int MADV_DONTNEED = 4;
    /** MADV_HUGEPAGE (Linux only): back the range with transparent huge pages when the system allows it. */
    private static final int MADV_HUGEPAGE = 14;
    /** MADV_NOHUGEPAGE (Linux only): never back the range with transparent huge pages. */
    private static final int MADV_NOHUGEPAGE = 15;
    private static final long MAP_FAILED = -1L;
    /** Whether purged memory reads as zero afterwards (Linux anonymous memory); elsewhere it must be zeroed again. */
    public static final boolean PURGE_ZEROES = LINUX;

    /**
     * The native functions, bound on first use: {@link #afterGrace} and {@link #LINUX} work on every
     * system, also where there is no {@code mmap} to find.
     */
    private static final class Calls {
        static final MethodHandle MMAP;
        static final MethodHandle MPROTECT;
        static final MethodHandle MADVISE;
        static final MethodHandle MUNMAP;

        static {
            Linker linker = Linker.nativeLinker();
            MMAP = bind(linker, "mmap", FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                    ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG));
            FunctionDescriptor threeArgs = FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                    ValueLayout.JAVA_INT);
            MPROTECT = bind(linker, "mprotect", threeArgs);
            MADVISE = bind(linker, "madvise", threeArgs);
            MUNMAP = bind(linker, "munmap", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
        }

        // downcallHandle is restricted: each descriptor matches the POSIX prototype (addresses as 64-bit integers).
        @SuppressWarnings("restricted")
        private static MethodHandle bind(Linker linker, String name, FunctionDescriptor descriptor) {
            return linker.downcallHandle(linker.defaultLookup().find(name)
                    .orElseThrow(() -> new IllegalStateException("native function " + name + " not found")), descriptor);
        }
    }

    private VirtualMemory() {
    }

    /**
     * Reserves {@code bytes} of address space aligned to {@code alignment}, inaccessible.
     *
     * @return the aligned start address
     * @throws OutOfMemoryError if the system refuses the reservation
     */
    public static long reserve(long bytes, long alignment) {
        return mapAligned(bytes, alignment, PROT_NONE, "cannot reserve " + bytes
                + " bytes of address space (mmap failed); build the PooledAllocator with a smaller capacity");
    }

    /**
     * Maps {@code bytes} of anonymous, readable and writable memory aligned to {@code alignment}. The pages
     * read as zero and take physical memory only when first touched.
     *
     * @return the aligned start address
     * @throws OutOfMemoryError if the system refuses the mapping
     */
    public static long mapReadWrite(long bytes, long alignment) {
        return mapAligned(bytes, alignment, PROT_READ_WRITE, "cannot map " + bytes + " bytes of memory (mmap failed)");
    }

    /** Maps anonymous memory with {@code protection}, aligned: the slack of a larger mapping is unmapped. */
    private static long mapAligned(long bytes, long alignment, int protection, String refusal) {
        long raw;
        try {
            raw = (long) Calls.MMAP.invokeExact(0L, bytes + alignment, protection, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0L);
        } catch (Throwable e) {
            throw Failures.nativeCallFailed(e);
        }
        if (raw == MAP_FAILED || raw == 0) {
            throw new OutOfMemoryError(refusal);
        }
        return trimToAlignment(raw, bytes, alignment);
    }

    /** Unmaps the slack before and after the aligned part of a mapping of {@code bytes + alignment}. */
    private static long trimToAlignment(long raw, long bytes, long alignment) {
        long aligned = (raw + alignment - 1) & -alignment;
        if (aligned > raw) {
            unmap(raw, aligned - raw);
        }
        long tail = raw + bytes + alignment - (aligned + bytes);
        if (tail > 0) {
            unmap(aligned + bytes, tail);
        }
        return aligned;
    }

    /**
     * Advises the system to back a mapped range with transparent huge pages, or never to (even where
     * they are on for all memory); Linux only, elsewhere nothing. Advice only: where huge pages are off,
     * or the kernel refuses, the range keeps its small pages.
     */
    public static void adviseHugePages(long address, long bytes, boolean huge) {
        if (!LINUX) {
            return;
        }
        try {
            int ignored = (int) Calls.MADVISE.invokeExact(address, bytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
        } catch (Throwable e) {
            throw Failures.nativeCallFailed(e);
        }
    }

    /** Makes a reserved range readable and writable. @throws OutOfMemoryError if the system refuses */
    public static void commit(long address, long bytes) {
        int rc;
        try {
            rc = (int) Calls.MPROTECT.invokeExact(address, bytes, PROT_READ_WRITE);
        } catch (Throwable e) {
            throw Failures.nativeCallFailed(e);
        }
        if (rc != 0) {
            throw new OutOfMemoryError("cannot commit " + bytes + " bytes (mprotect failed)");
        }
    }

    /** Gives the physical memory of a committed range back; it stays accessible and reads as zero. */
    public static void purge(long address, long bytes) {
        try {
            int ignored = (int) Calls.MADVISE.invokeExact(address, bytes, MADV_DONTNEED);
        } catch (Throwable e) {
            throw Failures.nativeCallFailed(e);
        }
    }

    /**
     * How long a range given back by {@link #release} stays mapped, purged, before it is unmapped.
     *
     * <p>Why not unmap at once: closing a shared arena must make every access of its segments by another
     * thread either finish before the close returns or throw. JDK 25 has a known hole in that
     * (JDK-8364167, fixed in later builds): a thread inside a compiled access can slip one more load or
     * store past the close. Over memory that is unmapped by then, that one access is a SIGSEGV and the JVM
     * dies; over memory that is still mapped it reads zero or writes into pages nobody uses any more. The
     * straggler runs as soon as the closing handshake lets it go, so a grace of a second is far longer than
     * the window; until then the range costs address space, and no physical memory (it is purged at once).
     */
    public static final long RELEASE_GRACE_MILLIS = 1000;

    private static final System.Logger LOG = System.getLogger(VirtualMemory.class.getName());

    /** Bytes given back by {@link #release} and not unmapped yet: for tests and diagnostics. */
    private static final AtomicLong RELEASING_BYTES = new AtomicLong();

    /** Frees handed to {@link #afterGrace} that have not run yet. */
    private static final AtomicInteger FREES_WAITING = new AtomicInteger();

    /** Its write lock is a {@link #holdFrees} hold; each free after the grace runs under its read lock. */
    private static final ReentrantReadWriteLock FREES_HELD = new ReentrantReadWriteLock();

    /** A hold on the frees after the grace, from {@link #holdFrees}; closing it lets them run. */
    public interface FreesHeld extends AutoCloseable {
        /** Lets the held frees run: those whose grace has ended run now. Call it on the thread that took the hold. */
        @Override
        void close();
    }

    /**
     * The smallest page size of the systems the library maps memory on (x86-64, aarch64 with 4 KiB pages;
     * a page of 16 or 64 KiB holds whole pages of this size, and a purge rounds to its own pages).
     */
    private static final long SYSTEM_PAGE_BYTES = 4096;

    /** The one daemon thread that unmaps released ranges; made on first use, it ends when idle. */
    private static final class Unmapper {
        static final ScheduledThreadPoolExecutor EXECUTOR = WeakSchedule.daemonExecutor("offheap-unmap");

        static {
            EXECUTOR.setKeepAliveTime(RELEASE_GRACE_MILLIS * 5, TimeUnit.MILLISECONDS);
            EXECUTOR.allowCoreThreadTimeOut(true);
        }
    }

    /**
     * Gives a mapped or reserved range back to the system for good: its physical memory now, its address
     * range {@link #RELEASE_GRACE_MILLIS} later (see there why). Call it only once nothing the library hands
     * out can reach the range any more (its arena is closed).
     */
    public static void release(long address, long bytes) {
        purge(address, bytes);
        RELEASING_BYTES.addAndGet(bytes);
        afterGrace(() -> {
            try {
                unmap(address, bytes);
            } finally {
                RELEASING_BYTES.addAndGet(-bytes);
            }
        });
    }

    /**
     * Runs {@code freeing} (a close of an arena that owns memory, an unmap) {@link #RELEASE_GRACE_MILLIS}
     * from now on the library's unmapping thread, for memory whose users' scopes are closed already; or now
     * if no thread could take it. It runs once, whichever way: a thread that could not be started leaves the
     * scheduled run in the executor's queue, for the next thread it starts. A failure of {@code freeing} is
     * logged, as nobody waits for it; run now, it is thrown to the caller.
     */
    public static void afterGrace(Runnable freeing) {
        afterGrace(freeing, Unmapper.EXECUTOR, RELEASE_GRACE_MILLIS);
    }

    /** {@link #afterGrace(Runnable)} on {@code executor}, {@code delayMillis} from now: for tests. */
    static void afterGrace(Runnable freeing, ScheduledExecutorService executor, long delayMillis) {
        FREES_WAITING.incrementAndGet();
        // taken by whichever runs it first: the scheduled run, or the caller when scheduling failed
        AtomicBoolean taken = new AtomicBoolean();
        Runnable logged = () -> {
            if (!taken.compareAndSet(false, true)) {
                return; // queued by a schedule whose thread could not start, and freed by its caller then
            }
            FREES_HELD.readLock().lock();
            try {
                freeing.run();
            } catch (RuntimeException | Error e) {
                LOG.log(System.Logger.Level.WARNING, "could not free memory after its grace", e);
            } finally {
                // counted down under the lock: a hold taken after this free sees it counted out already
                FREES_WAITING.decrementAndGet();
                FREES_HELD.readLock().unlock();
            }
        };
        try {
            executor.schedule(logged, delayMillis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException | OutOfMemoryError e) {
            // no thread to free it later (none could be made): freed now, as before the grace existed. The
            // executor may have queued the run before its thread failed to start: taking it here makes that
            // run do nothing, where it freed (unmapped) the memory a second time once a later thread started
            if (taken.compareAndSet(false, true)) {
                FREES_WAITING.decrementAndGet();
                freeing.run();
            }
        }
    }

    /**
     * Holds back every free handed to {@link #afterGrace} (and so every unmap of {@link #release}) until the
     * returned hold is closed; one whose grace ends meanwhile waits, and runs once the hold is closed. For tests
     * that read freed memory right after its close, as only a late access would: without the hold, a test
     * thread that a loaded machine stalls for longer than the grace reads unmapped memory and kills the JVM.
     * A free run at once because no thread could take it is not held back.
     *
     * @return the hold, taken once a free running now has ended (the caller waits for it); close it on the
     *         calling thread
     */
    public static FreesHeld holdFrees() {
        FREES_HELD.writeLock().lock();
        return () -> FREES_HELD.writeLock().unlock();
    }

    /** @return frees handed to {@link #afterGrace} that have not run yet: for tests and diagnostics */
    public static int freesWaiting() {
        return FREES_WAITING.get();
    }

    /**
     * {@link #purge}s the whole system pages inside {@code memory} (native memory the caller owns and will
     * free): its physical memory goes back now, where the free comes only after a grace. Linux only, where
     * purged anonymous memory reads as zero; elsewhere nothing.
     */
    public static void purgeWholePages(MemorySegment memory) {
        if (!LINUX) {
            return;
        }
        long start = (memory.address() + SYSTEM_PAGE_BYTES - 1) & -SYSTEM_PAGE_BYTES;
        long end = (memory.address() + memory.byteSize()) & -SYSTEM_PAGE_BYTES;
        if (end > start) {
            purge(start, end - start);
        }
    }

    /** @return bytes given back by {@link #release} that are still mapped, waiting for their grace to end */
    public static long releasingBytes() {
        return RELEASING_BYTES.get();
    }

    public static void unmap(long address, long bytes) {
        try {
            int ignored = (int) Calls.MUNMAP.invokeExact(address, bytes);
        } catch (Throwable e) {
            throw Failures.nativeCallFailed(e);
        }
    }
}
