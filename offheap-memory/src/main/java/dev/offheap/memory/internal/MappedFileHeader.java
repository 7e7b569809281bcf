package dev.offheap.memory.internal;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * The header at the start of a mapped memory manager's file: what says that the file is a manager's, and for
 * what sizes it was made. Without it any regular file large enough (a database, a log, another program's data
 * named by a typo) would be mapped and overwritten by the first page writes.
 *
 * <p>The header takes the file's first {@link #BYTES} bytes, so that the pages after it stay aligned to the
 * system's pages, in the file and in memory; page {@code i} is at file offset {@code BYTES + i * pageSize}, and a
 * file made for {@code total} bytes of pages is {@code BYTES + total} bytes long. Fields are little-endian:
 * <pre>
 *  0           8         12             16          20        24             32                     4096
 *  +-----------+---------+--------------+-----------+---------+--------------+----------------------+
 *  | magic     | version | header bytes | page size | 0       | total bytes  | zeros                |
 *  | "OFFHEAPM"| int: 1  | int: 4096    | int       | int     | long         |                      |
 *  +-----------+---------+--------------+-----------+---------+--------------+----------------------+
 * </pre>
 * {@code header bytes} is where the pages start; {@code page size} and {@code total bytes} are those of the build
 * that made the file. A header is written once, when a build makes the file (new or empty), and never rewritten:
 * a later build that serves a smaller total, or other pages, leaves it saying what the file was made for.
 *
 * <p>Not an API. Stateless and thread-safe.
 */
public final class MappedFileHeader {
    /** The header's length: where the pages start in the file. */
    public static final int BYTES = 4096;
    /** The format this build writes and reads. */
    public static final int VERSION = 1;
    /** "OFFHEAPM" in ASCII. */
    private static final byte[] MAGIC = "OFFHEAPM".getBytes(StandardCharsets.US_ASCII);
    private static final int VERSION_AT = 8;
    private static final int HEADER_BYTES_AT = 12;
    private static final int PAGE_SIZE_AT = 16;
    private static final int RESERVED_AT = 20;
    private static final int TOTAL_AT = 24;
    /** The bytes that hold the fields; the rest of the header is zeros. */
    private static final int FIELDS = 32;
    private static final int MIN_PAGE_SIZE = 4096;
    private static final int MAX_PAGE_SIZE = 64 << 20;

    private MappedFileHeader() {
    }

    /**
     * Writes a header at the start of the file, the whole {@link #BYTES}, and waits until the device has it (and
     * the file's new length), so that a file whose pages were forced later never comes back from a crash of the
     * machine without the header that makes the next build take it.
     *
     * @param channel  the file, open for writing
     * @param pageSize the manager's page size in bytes
     * @param total    the manager's total size in bytes, the pages' bytes, without the header
     * @throws IOException if the file cannot be written
     */
    public static void write(FileChannel channel, int pageSize, long total) throws IOException {
        ByteBuffer header = ByteBuffer.allocate(BYTES).order(ByteOrder.LITTLE_ENDIAN);
        header.put(0, MAGIC);
        header.putInt(VERSION_AT, VERSION);
        header.putInt(HEADER_BYTES_AT, BYTES);
        header.putInt(PAGE_SIZE_AT, pageSize);
        header.putLong(TOTAL_AT, total);
        long at = 0;
        while (header.hasRemaining()) {
            at += channel.write(header, at);
        }
        channel.force(true);
    }

    /**
     * Judges an existing, non-empty file for a manager: it must start with a header of this format whose sizes
     * can be used, made for at least {@code total} bytes of pages. Reads only; nothing of the file changes.
     *
     * <p>A file shorter than its header says (a build killed while it grew the file: it writes the header first)
     * is not refused here: the build grows it. A file that holds its header and nothing more (a build killed
     * right after writing it) holds no page, so any build may make it again, whatever total it was made for.
     *
     * @param channel the file, open for reading
     * @param file    its path, for the messages
     * @param total   the total size in bytes that the manager being built needs, without the header
     * @return whether the file holds a valid header and no page byte, so that the build should make it again
     *         (write its own header) as it makes an empty file
     * @throws IOException              if the file cannot be read
     * @throws IllegalArgumentException if the file is not a manager's (no magic), its header is of another format
     *                                  version or has sizes that cannot be used, or it was made for a smaller total
     */
    public static boolean check(FileChannel channel, Path file, long total) throws IOException {
        long size = channel.size();
        ByteBuffer header = ByteBuffer.allocate((int) Math.min(FIELDS, size)).order(ByteOrder.LITTLE_ENDIAN);
        while (header.hasRemaining()) {
            if (channel.read(header, header.position()) < 0) {
                throw new EOFException(file + " ended at " + header.position() + " bytes while its header was read");
            }
        }
        header.flip();
        byte[] first = new byte[Math.min(MAGIC.length, header.limit())];
        header.get(0, first);
        if (header.limit() < FIELDS && Arrays.equals(first, MAGIC)) {
            throw new IllegalArgumentException("mapped file " + file + " starts with a memory manager's header cut short"
                    + " at " + size + " bytes (a build stopped, or the machine crashed, while it was written): it holds no"
                    + " page; delete it, and the next build makes it again");
        }
        if (header.limit() < FIELDS || !Arrays.equals(first, MAGIC)) {
            throw new IllegalArgumentException("mapped file " + file + " is not a memory manager's file: its first bytes"
                    + " are not the header a manager writes (it holds " + size + " bytes, starting "
                    + HexFormat.ofDelimiter(" ").formatHex(first) + "; a manager's file starts with \"OFFHEAPM\"); name"
                    + " another file, or delete it if it is yours to lose");
        }
        int version = header.getInt(VERSION_AT);
        if (version != VERSION) {
            throw new IllegalArgumentException("mapped file " + file + " is a memory manager's file of format version "
                    + version + ", which this build cannot use (it reads version " + VERSION + "); map it with the build"
                    + " that made it, name another file, or delete it if it is yours to lose");
        }
        int headerBytes = header.getInt(HEADER_BYTES_AT);
        int pageSize = header.getInt(PAGE_SIZE_AT);
        int reserved = header.getInt(RESERVED_AT);
        long madeFor = header.getLong(TOTAL_AT);
        if (headerBytes != BYTES || reserved != 0 || pageSize < MIN_PAGE_SIZE || pageSize > MAX_PAGE_SIZE
                || Integer.bitCount(pageSize) != 1 || madeFor <= 0 || madeFor % pageSize != 0
                || madeFor > Long.MAX_VALUE - BYTES) {
            throw new IllegalArgumentException("mapped file " + file + " has a memory manager's header with sizes this"
                    + " build cannot use (header bytes " + headerBytes + ", page size " + pageSize + ", total "
                    + madeFor + ", reserved field " + reserved + "; it writes header bytes " + BYTES + ", a power-of-two"
                    + " page size from " + MIN_PAGE_SIZE + " to " + MAX_PAGE_SIZE + ", a positive total that is a multiple"
                    + " of it, and 0): the header is damaged; name another file, or delete it if it is yours to lose");
        }
        if (size <= BYTES) {
            return true;
        }
        if (madeFor < total) {
            throw new IllegalArgumentException("mapped file " + file + " was made for a memory manager of " + madeFor
                    + " bytes of pages, less than the " + total + " bytes this one needs; configure " + madeFor
                    + " bytes or less, name another file, or delete it if its pages are yours to lose");
        }
        return false;
    }
}
