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
        } else {
            OPEN = null;
            POSIX_FALLOCATE = null;
            CLOSE = null;
            STRERROR = null;
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
     * ({@link #supported()} is false) the file is left as it is.
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
                int error;
                do {
                    error = (int) POSIX_FALLOCATE.invokeExact(fd, 0L, bytes);
                } while (error == EINTR);
                if (error != 0) {
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
