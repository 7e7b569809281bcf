package dev.offheap.memory.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/**
 * Reserves the blocks of a file with {@code posix_fallocate}, so that writes through a mapping of it
 * cannot fault for want of space later.
 *
 * <p>Why: a file grown by {@code FileChannel.map} is sparse. The file system hands out its blocks
 * only when a page of the mapping is first written, and if it is full by then the write faults: the
 * JDK turns the SIGBUS into an {@link InternalError} thrown from an ordinary segment access, far from
 * the code that sized the file. Two mapped managers (or any other writer) on one file system could
 * both pass a free-space check and promise the same space twice. Reserving at build time moves the
 * failure to the build, with a message, and makes the promise exclusive.
 *
 * <p>Linux only (elsewhere {@link #supported()} is false and nothing is reserved). Thread-safe.
 */
public final class FileSpace {
    private static final int O_RDWR = 2;
    private static final int ENOSPC = 28;
    private static final int EFBIG = 27;
    private static final int EDQUOT = 122;
    private static final int EINTR = 4;

    /** How the JDK encodes file names for the system (the locale's charset), so that open names the same file. */
    private static final Charset FILE_NAMES = Charset.forName(System.getProperty("sun.jnu.encoding", "UTF-8"),
            StandardCharsets.UTF_8);
    private static final boolean LINUX = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux");
    /** {@code int open(const char *path, int flags, ...)}, with errno captured; null where not supported. */
    private static final MethodHandle OPEN;
    /** {@code int posix_fallocate(int fd, off_t offset, off_t len)}: returns the error number itself. */
    private static final MethodHandle POSIX_FALLOCATE;
    /** {@code int close(int fd)}. */
    private static final MethodHandle CLOSE;
    /** {@code char *strerror(int errnum)}. */
    private static final MethodHandle STRERROR;
    /** {@code int ftruncate(int fd, off_t length)}. */
    private static final MethodHandle FTRUNCATE;
    /** {@code off_t lseek(int fd, off_t offset, int whence)}. */
    private static final MethodHandle LSEEK;
    /** {@code int fallocate(int fd, int mode, off_t offset, off_t len)} (Linux), with errno captured; null if absent. */
    private static final MethodHandle FALLOCATE;
    private static final int SEEK_END = 2;
    private static final int SEEK_DATA = 3;
    private static final int SEEK_HOLE = 4;
    private static final int FALLOC_FL_KEEP_SIZE = 1;
    private static final int FALLOC_FL_PUNCH_HOLE = 2;
    private static final MemoryLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));

    static {
        Linker linker = Linker.nativeLinker();
        SymbolLookup libc = linker.defaultLookup();
        Optional<MemorySegment> fallocate = LINUX ? libc.find("posix_fallocate") : Optional.empty();
        if (fallocate.isPresent()) {
            OPEN = bind(linker, libc, "open", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT),
                    Linker.Option.captureCallState("errno"));
            POSIX_FALLOCATE = bind(linker, libc, "posix_fallocate",
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
            CLOSE = bind(linker, libc, "close", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
            STRERROR = bind(linker, libc, "strerror", FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
            FTRUNCATE = bind(linker, libc, "ftruncate",
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG));
            LSEEK = bind(linker, libc, "lseek",
                    FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
            FALLOCATE = libc.find("fallocate").isEmpty() ? null : bind(linker, libc, "fallocate",
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG,
                            ValueLayout.JAVA_LONG), Linker.Option.captureCallState("errno"));
        } else {
            OPEN = null;
            POSIX_FALLOCATE = null;
            CLOSE = null;
            STRERROR = null;
            FTRUNCATE = null;
            LSEEK = null;
            FALLOCATE = null;
        }
    }

    private FileSpace() {
    }

    // downcallHandle is restricted: each descriptor matches the POSIX prototype named next to its use.
    @SuppressWarnings("restricted")
    private static MethodHandle bind(Linker linker, SymbolLookup lookup, String name, FunctionDescriptor descriptor,
            Linker.Option... options) {
        return linker.downcallHandle(lookup.find(name)
                .orElseThrow(() -> new IllegalStateException("native function " + name + " not found")), descriptor, options);
    }

    /** @return whether {@link #reserve} can reserve blocks on this system */
    public static boolean supported() {
        return POSIX_FALLOCATE != null;
    }

    /**
     * Allocates every block of the first {@code bytes} of an existing file, growing the file to
     * {@code bytes} if it is shorter. Blocks already allocated, and their contents, are left as they
     * are. Only the file's size and allocation change; on a file system without native support, the C
     * library writes a zero into each unallocated block. Where the system lacks the call
     * ({@link #supported()} is false) the file is left as it is. A reservation refused part way gives back the
     * blocks it took (a disk file system such as ext4 keeps them, and a refused build left it full): the holes
     * the file had in its first {@code bytes} are punched again, and a file grown is cut back to its size.
     *
     * @param file  an existing regular file that this process may write
     * @param bytes how many bytes from the start to reserve, positive
     * @throws FileSpaceException if the file cannot be opened or its file system (or quota) has no room
     */
    public static void reserve(Path file, long bytes) throws FileSpaceException {
        if (bytes <= 0) {
            throw new IllegalArgumentException("bytes must be positive: " + bytes);
        }
        if (!supported()) {
            return;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment path = arena.allocateFrom(file.toAbsolutePath().toString(), FILE_NAMES);
            MemorySegment callState = arena.allocate(CALL_STATE);
            int fd;
            do {
                fd = (int) OPEN.invokeExact(callState, path, O_RDWR);
            } while (fd < 0 && (int) ERRNO.get(callState, 0L) == EINTR);
            if (fd < 0) {
                int errno = (int) ERRNO.get(callState, 0L);
                throw new FileSpaceException("cannot open " + file + " to reserve its blocks: " + describe(errno));
            }
            try {
                long sizeBefore = (long) LSEEK.invokeExact(fd, 0L, SEEK_END);
                long[] holes = holes(fd, Math.min(sizeBefore, bytes));
                int error;
                do {
                    error = (int) POSIX_FALLOCATE.invokeExact(fd, 0L, bytes);
                } while (error == EINTR);
                if (error != 0) {
                    giveBack(fd, holes, sizeBefore, callState);
                    throw new FileSpaceException("cannot reserve " + bytes + " bytes for " + file + ": "
                            + describe(error) + hint(error));
                }
            } finally {
                int ignoredBecauseNothingWasWritten = (int) CLOSE.invokeExact(fd);
            }
        } catch (FileSpaceException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("downcall failed", t);
        }
    }

    /**
     * @param fd    an open descriptor of the file
     * @param limit where to stop looking
     * @return start and end of each hole of the file before {@code limit}, in pairs; none where the file system
     *         does not tell holes apart (then it reports the whole file as data)
     */
    private static long[] holes(int fd, long limit) throws Throwable {
        long[] holes = new long[0];
        int count = 0;
        long at = 0;
        while (at < limit) {
            long hole = (long) LSEEK.invokeExact(fd, at, SEEK_HOLE);
            if (hole < 0 || hole >= limit) {
                break;
            }
            long data = (long) LSEEK.invokeExact(fd, hole, SEEK_DATA);
            long end = data < 0 ? limit : Math.min(data, limit); // ENXIO: no data after the hole
            if (count == holes.length) {
                holes = Arrays.copyOf(holes, Math.max(16, 2 * count));
            }
            holes[count++] = hole;
            holes[count++] = end;
            at = end;
        }
        return Arrays.copyOf(holes, count);
    }

    /**
     * Undoes a reservation refused part way: punches the file's old holes again (they read as zeros, as the
     * blocks reserved in them do, so no byte changes) and cuts a grown file back to its size. Best effort: what
     * the system refuses here stays taken, and the reservation's own refusal is what the caller sees.
     */
    private static void giveBack(int fd, long[] holes, long sizeBefore, MemorySegment callState) throws Throwable {
        if (FALLOCATE != null) {
            for (int i = 0; i < holes.length; i += 2) {
                int ignoredBestEffort = (int) FALLOCATE.invokeExact(callState, fd,
                        FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, holes[i], holes[i + 1] - holes[i]);
            }
        }
        if ((long) LSEEK.invokeExact(fd, 0L, SEEK_END) > sizeBefore) {
            int ignoredBestEffort = (int) FTRUNCATE.invokeExact(fd, sizeBefore);
        }
    }

    /** @return what the error means for the reservation, or nothing where the system's text says it all */
    private static String hint(int errno) {
        return switch (errno) {
            case ENOSPC, EDQUOT -> " (its file system or quota has less room)";
            // not want of room: the process's RLIMIT_FSIZE (the JVM ignores SIGXFSZ, so the call fails with EFBIG)
            case EFBIG -> " (more than this process's file size limit, ulimit -f, or the largest file its file system"
                    + " allows)";
            default -> "";
        };
    }

    // reinterpret is restricted: strerror returns a NUL-terminated string in static storage.
    @SuppressWarnings("restricted")
    private static String describe(int errno) throws Throwable {
        MemorySegment message = (MemorySegment) STRERROR.invokeExact(errno);
        String text = message.equals(MemorySegment.NULL) ? "error " + errno : message.reinterpret(4096).getString(0);
        return text + " (errno " + errno + ")";
    }

    /** The file could not be opened or its blocks could not be reserved; the message says why. */
    public static final class FileSpaceException extends Exception {
        private static final long serialVersionUID = 1L;

        FileSpaceException(String message) {
            super(message);
        }
    }
}
