package dev.offheap.memory.internal;

import java.io.IOException;
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
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
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
 * <p>A mapped manager reserves through the {@link Descriptor} it also locks the file with, opened once: the
 * lock is taken before the reservation changes anything, and what is reserved is the file the lock is on.
 *
 * <p>Linux only (elsewhere {@link #supported()} is false and nothing is reserved). Thread-safe.
 */
public final class FileSpace {
    private static final System.Logger LOG = System.getLogger(FileSpace.class.getName());
    private static final int O_RDWR = 2;
    // the same on x86-64 and aarch64 (asm-generic), the architectures Descriptor is used on
    private static final int O_CREAT = 0100;
    private static final int O_EXCL = 0200;
    private static final int O_CLOEXEC = 02000000;
    private static final int CREATED_FILE_MODE = 0666; // what FileChannel.open gives a new file, less the umask
    private static final int EEXIST = 17;
    private static final int ENOENT = 2;
    private static final int EACCES = 13;
    private static final int EPERM = 1;
    private static final int EAGAIN = 11;
    /** fcntl's command for an open file description's lock, taken without waiting (Linux 3.15 and later). */
    private static final int F_OFD_SETLK = 37;
    private static final short F_WRLCK = 1;
    private static final short SEEK_SET = 0;
    /**
     * {@code struct flock} of 64-bit Linux (x86-64, aarch64):
     * <pre>
     *  0      2        4      8         16      24      28      32
     *  +------+--------+------+---------+-------+-------+-------+
     *  |l_type|l_whence| pad  | l_start | l_len | l_pid |  pad  |
     *  +------+--------+------+---------+-------+-------+-------+
     * </pre>
     * An open file description's lock needs l_pid 0; l_start 0 with l_len 0 is the whole file, however it grows.
     */
    private static final MemoryLayout FLOCK = MemoryLayout.structLayout(ValueLayout.JAVA_SHORT.withName("l_type"),
            ValueLayout.JAVA_SHORT.withName("l_whence"), MemoryLayout.paddingLayout(4),
            ValueLayout.JAVA_LONG.withName("l_start"), ValueLayout.JAVA_LONG.withName("l_len"),
            ValueLayout.JAVA_INT.withName("l_pid"), MemoryLayout.paddingLayout(4));
    private static final VarHandle L_TYPE = FLOCK.varHandle(MemoryLayout.PathElement.groupElement("l_type"));
    private static final VarHandle L_WHENCE = FLOCK.varHandle(MemoryLayout.PathElement.groupElement("l_whence"));
    /** Where a process's descriptors can be opened again, as the very files they are open on. */
    private static final Path OWN_DESCRIPTORS = Path.of("/proc/self/fd");
    private static final int ENOSPC = 28;
    private static final int EFBIG = 27;
    private static final int EDQUOT = 122;
    private static final int EINTR = 4;

    /** How the JDK encodes file names for the system (the locale's charset), so that open names the same file. */
    private static final Charset FILE_NAMES = Charset.forName(System.getProperty("sun.jnu.encoding", "UTF-8"),
            StandardCharsets.UTF_8);
    private static final boolean LINUX = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux");
    /** {@code int open(const char *path, int flags, ... mode_t mode)}, with errno captured; null where not supported. */
    private static final MethodHandle OPEN;
    /** {@code int fcntl(int fd, int cmd, ... struct flock *lock)}, with errno captured; null where not supported. */
    private static final MethodHandle FCNTL;
    /** Whether {@link Descriptor}s can be opened here: 64-bit Linux with {@code /proc/self/fd}. */
    private static final boolean DESCRIPTORS;
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
            OPEN = bind(linker, libc, "open", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT,
                    ValueLayout.JAVA_INT), Linker.Option.captureCallState("errno"), Linker.Option.firstVariadicArg(2));
            FCNTL = libc.find("fcntl").isEmpty() ? null : bind(linker, libc, "fcntl", FunctionDescriptor.of(ValueLayout.JAVA_INT,
                    ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS), Linker.Option.captureCallState("errno"),
                    Linker.Option.firstVariadicArg(2));
            String arch = System.getProperty("os.arch", "");
            DESCRIPTORS = FCNTL != null && (arch.equals("amd64") || arch.equals("x86_64") || arch.equals("aarch64"))
                    && Files.isDirectory(OWN_DESCRIPTORS);
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
            FCNTL = null;
            DESCRIPTORS = false;
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
                fd = (int) OPEN.invokeExact(callState, path, O_RDWR | O_CLOEXEC, 0);
            } while (fd < 0 && (int) ERRNO.get(callState, 0L) == EINTR);
            if (fd < 0) {
                int errno = (int) ERRNO.get(callState, 0L);
                throw new FileSpaceException("cannot open " + file + " to reserve its blocks: " + describe(errno));
            }
            try {
                reserve(fd, file, bytes, callState);
            } finally {
                int ignoredBecauseNothingWasWritten = (int) CLOSE.invokeExact(fd);
            }
        } catch (FileSpaceException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("downcall failed", t);
        }
    }

    /** {@link #reserve(Path, long)} through an open descriptor of {@code file}. */
    private static void reserve(int fd, Path file, long bytes, MemorySegment callState) throws Throwable {
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

    /**
     * One open file description of a regular file, opened here rather than by a {@code FileChannel} so that it
     * can be locked, and its blocks reserved, through the same descriptor: the lock is an open file description's
     * ({@code F_OFD_SETLK}), which belongs to this description alone, so closing other descriptors of the file (a
     * channel, a refused build's) never drops it, and the process still loses it when it ends, however it ends.
     * {@link #path()} opens the very same file again (through {@code /proc/self/fd}), whatever its name has come to
     * name since, for a channel to map it.
     *
     * <p>Where {@link #supported()} is false, none can be opened. Opened by one thread and used by it; {@link #close()}
     * may come from any thread, once or more.
     */
    public static final class Descriptor implements AutoCloseable {
        /** What {@link #tryLock()} found. */
        public enum Lock {
            /** This descriptor holds an exclusive lock on the whole file now, until it is closed. */
            TAKEN,
            /** Someone else (another process, or another descriptor of this one) holds a lock on the file. */
            HELD_ELSEWHERE,
            /** The system cannot lock this way: a kernel before Linux 3.15, or a file system that cannot lock. */
            NOT_SUPPORTED
        }

        private final int fd;
        private final Path file;
        private boolean closed;

        private Descriptor(int fd, Path file) {
            this.fd = fd;
            this.file = file;
        }

        /** @return whether {@link #open} can open descriptors on this system: 64-bit Linux (x86-64, aarch64) with /proc */
        public static boolean supported() {
            return DESCRIPTORS;
        }

        /**
         * Opens a file for reading and writing, following symbolic links as {@code open(2)} does.
         *
         * @param file      the file's path
         * @param createNew true to create the file, failing if anything is at the path already (a dangling symbolic
         *                  link too); false to open an existing file
         * @return the file's descriptor, which the caller closes
         * @throws FileAlreadyExistsException    if {@code createNew} and something is at the path
         * @throws NoSuchFileException           if not {@code createNew} and nothing is at the path (or a link dangles)
         * @throws AccessDeniedException         if this process may not open or create the file
         * @throws FileSystemException           for any other refusal of the system, with its reason
         * @throws UnsupportedOperationException if {@link #supported()} is false
         */
        public static Descriptor open(Path file, boolean createNew) throws IOException {
            if (!DESCRIPTORS) {
                throw new UnsupportedOperationException("file descriptors are opened on 64-bit Linux only");
            }
            int flags = O_RDWR | O_CLOEXEC | (createNew ? O_CREAT | O_EXCL : 0);
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment path = arena.allocateFrom(file.toString(), FILE_NAMES);
                MemorySegment callState = arena.allocate(CALL_STATE);
                int fd;
                do {
                    fd = (int) OPEN.invokeExact(callState, path, flags, CREATED_FILE_MODE);
                } while (fd < 0 && (int) ERRNO.get(callState, 0L) == EINTR);
                if (fd < 0) {
                    int errno = (int) ERRNO.get(callState, 0L);
                    throw switch (errno) {
                        case EEXIST -> new FileAlreadyExistsException(file.toString());
                        case ENOENT -> new NoSuchFileException(file.toString());
                        case EACCES, EPERM -> new AccessDeniedException(file.toString());
                        default -> new FileSystemException(file.toString(), null, describe(errno));
                    };
                }
                return new Descriptor(fd, file);
            } catch (IOException | RuntimeException | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new IllegalStateException("downcall failed", t);
            }
        }

        /** @return a path that opens this descriptor's file itself, while the descriptor is open */
        public Path path() {
            return OWN_DESCRIPTORS.resolve(Integer.toString(fd));
        }

        /**
         * Takes an exclusive lock on the whole file for this open file description, without waiting. It conflicts
         * with every other lock on the file (POSIX record locks included, this process's too), and lasts until
         * this descriptor is closed.
         *
         * @return what became of the attempt
         * @throws IllegalStateException if the descriptor is closed
         */
        public Lock tryLock() {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment lock = arena.allocate(FLOCK); // zeroed: l_start, l_len and l_pid 0
                L_TYPE.set(lock, 0L, F_WRLCK);
                L_WHENCE.set(lock, 0L, SEEK_SET);
                MemorySegment callState = arena.allocate(CALL_STATE);
                int result;
                synchronized (this) {
                    checkOpen();
                    do {
                        result = (int) FCNTL.invokeExact(callState, fd, F_OFD_SETLK, lock);
                    } while (result < 0 && (int) ERRNO.get(callState, 0L) == EINTR);
                }
                if (result == 0) {
                    return Lock.TAKEN;
                }
                int errno = (int) ERRNO.get(callState, 0L);
                return errno == EAGAIN || errno == EACCES ? Lock.HELD_ELSEWHERE : Lock.NOT_SUPPORTED;
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new IllegalStateException("downcall failed", t);
            }
        }

        /**
         * {@link FileSpace#reserve(Path, long)} for this descriptor's file: the same, and the same undoing of a refused
         * reservation, but on the file this descriptor is open on, not on what its path names now.
         *
         * @param bytes how many bytes from the start to reserve, positive
         * @throws FileSpaceException       if the file system (or quota) has no room
         * @throws IllegalArgumentException if {@code bytes} is not positive
         * @throws IllegalStateException    if the descriptor is closed
         */
        public void reserve(long bytes) throws FileSpaceException {
            if (bytes <= 0) {
                throw new IllegalArgumentException("bytes must be positive: " + bytes);
            }
            try (Arena arena = Arena.ofConfined()) {
                synchronized (this) {
                    checkOpen();
                    FileSpace.reserve(fd, file, bytes, arena.allocate(CALL_STATE));
                }
            } catch (FileSpaceException | RuntimeException | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new IllegalStateException("downcall failed", t);
            }
        }

        /** Closes the descriptor, and with it lets go of its lock; a second close does nothing. */
        @Override
        public synchronized void close() {
            if (closed) {
                return;
            }
            closed = true;
            try {
                int ignoredBecauseNothingIsWrittenThroughIt = (int) CLOSE.invokeExact(fd);
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new IllegalStateException("downcall failed", t);
            }
        }

        private void checkOpen() {
            if (closed) {
                throw new IllegalStateException("descriptor of " + file + " is closed");
            }
        }
    }

    /** The file could not be opened or its blocks could not be reserved; the message says why. */
    public static final class FileSpaceException extends Exception {
        private static final long serialVersionUID = 1L;

        FileSpaceException(String message) {
            super(message);
        }
    }

    /**
     * Finds who locks a file in Linux's table of locks ({@code /proc/locks}, whose lines name the holding process
     * and the file as {@code major:minor:inode} of its device), for a refusal to name it. An open file
     * description's lock (a mapped manager's, {@code OFDLCK}) names no process there ({@code -1}): its holder is
     * the process that lists the lock among its descriptors' ({@code /proc/PID/fdinfo/FD}).
     *
     * @return "process PID (COMMAND)", "this JVM (process PID), through another channel of the file", or null where
     *         the table is missing, lists no holder for the file, or names none (a lock of a process of another pid
     *         namespace, an open file description's lock of a process whose descriptors this one may not read)
     */
    public static String lockHolder(Path file) {
        Path table = Path.of("/proc/locks");
        try {
            if (!Files.isReadable(table)) {
                return null;
            }
            long device = (Long) Files.getAttribute(file, "unix:dev");
            long inode = (Long) Files.getAttribute(file, "unix:ino");
            // the C library's major() and minor() of a stat device number
            long major = ((device >>> 8) & 0xfff) | ((device >>> 32) & ~0xfffL);
            long minor = (device & 0xff) | ((device >>> 12) & ~0xffL);
            String lockedFile = String.format(Locale.ROOT, "%02x:%02x:%d", major, minor, inode);
            long pid = -1;
            boolean openFileDescriptionLock = false;
            for (String line : Files.readAllLines(table, StandardCharsets.US_ASCII)) {
                String[] fields = lockFields(line);
                if (fields != null && fields[5].equals(lockedFile)) {
                    pid = Long.parseLong(fields[4]);
                    openFileDescriptionLock = fields[1].equals("OFDLCK");
                    break;
                }
            }
            if (openFileDescriptionLock) {
                pid = openFileDescriptionLockHolder(lockedFile);
            }
            if (pid <= 0) {
                return null;
            }
            if (pid == ProcessHandle.current().pid()) {
                return "this JVM (process " + pid + "), through another channel of the file,";
            }
            String command = ProcessHandle.of(pid).flatMap(process -> process.info().command()).orElse("command unknown");
            return "process " + pid + " (" + command + ")";
        } catch (IOException | RuntimeException e) {
            // the refusal stands without the name: no "unix" attributes here, a table of another format
            LOG.log(System.Logger.Level.DEBUG, "cannot tell who locks " + file, e);
            return null;
        }
    }

    /**
     * @param line a line of {@code /proc/locks}, or a {@code lock:} line of {@code /proc/PID/fdinfo/FD} without that
     *             word: {@code "1: POSIX  ADVISORY  WRITE 25735 fe:00:10053272 0 EOF"}
     * @return its fields, the holder's pid the fifth and the file the sixth; null for a waiter's line (it has "->"
     *         after the number) or one too short
     */
    private static String[] lockFields(String line) {
        String[] fields = line.trim().split("\\s+");
        return fields.length > 5 && !fields[1].equals("->") ? fields : null;
    }

    /**
     * @param lockedFile the file as {@code /proc/locks} names it, {@code major:minor:inode}
     * @return the process, of those whose descriptors this one may read, that holds an open file description's lock
     *         on the file through one of its descriptors, or -1 if none does
     */
    private static long openFileDescriptionLockHolder(String lockedFile) throws IOException {
        try (DirectoryStream<Path> processes = Files.newDirectoryStream(Path.of("/proc"),
                entry -> entry.getFileName().toString().chars().allMatch(Character::isDigit))) {
            for (Path process : processes) {
                try (DirectoryStream<Path> descriptors = Files.newDirectoryStream(process.resolve("fdinfo"))) {
                    for (Path descriptor : descriptors) {
                        List<String> lines;
                        try {
                            lines = Files.readAllLines(descriptor, StandardCharsets.US_ASCII);
                        } catch (IOException closedMeanwhile) {
                            continue;
                        }
                        for (String line : lines) {
                            String[] fields = line.startsWith("lock:") ? lockFields(line.substring(5)) : null;
                            if (fields != null && fields[1].equals("OFDLCK") && fields[5].equals(lockedFile)) {
                                return Long.parseLong(process.getFileName().toString());
                            }
                        }
                    }
                } catch (IOException | DirectoryIteratorException e) {
                    // a process of another user, or one that ended meanwhile: not one this one can name
                }
            }
        }
        return -1;
    }
}
