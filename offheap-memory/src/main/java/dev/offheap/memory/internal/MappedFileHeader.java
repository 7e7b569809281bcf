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
 *  0           8         12             16          20        24             32         36         4096
 *  +-----------+---------+--------------+-----------+---------+--------------+----------+----------+
 *  | magic     | version | header bytes | page size | 0       | total bytes  | whole    | zeros    |
 *  | "OFFHEAPM"| int: 1  | int: 4096    | int       | int     | long         | int: 0|1 |          |
 *  +-----------+---------+--------------+-----------+---------+--------------+----------+----------+
 * </pre>
 * {@code header bytes} is where the pages start; {@code page size} and {@code total bytes} are those of the build
 * that made the file. A header is written once, when a build makes the file (new or empty), with {@code whole} 0,
 * and its sizes are never rewritten: a later build that serves a smaller total, or other pages, leaves it saying
 * what the file was made for.
 *
 * <p>{@code whole} tells a file whose build stopped from one cut short after: a build writes 1 there, and syncs
 * it, only once the file has reached its full length ({@code BYTES + total bytes}, its blocks reserved) and has
 * synced that length, so a file marked whole and shorter than that has lost pages that may have held data (a
 * person or a program truncated it) and is refused, while an unmarked one is a build's that stopped while it
 * grew the file (it writes the header first), which held no page, and is grown. The field was zero in every file
 * of version 1 before it was defined, and builds before it ignore it: such a file is treated as one still
 * growing (grown if short, as those builds did) until a build finds it whole and marks it. A file truncated to
 * less than the field itself, or to nothing, cannot say it was whole.
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
    private static final int WHOLE_AT = 32;
    /** {@code whole}'s value once the file has reached its full length; 0 before. */
    private static final int WHOLE = 1;
    /** The bytes that hold the fields; the rest of the header is zeros. */
    private static final int FIELDS = 36;
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
        writeAt(channel, header, 0);
        channel.force(true);
    }

    /**
     * Judges an existing, non-empty file for a manager: it must start with a header of this format whose sizes
     * can be used, made for at least {@code total} bytes of pages. Reads only; nothing of the file changes.
     *
     * <p>A file shorter than its header says and not marked whole (a build killed while it grew the file: it
     * writes the header first) is not refused here: the build grows it. A file that holds its header and nothing
     * more, not marked whole (a build killed right after writing it), holds no page, so any build may make it
     * again, whatever total it was made for. A file marked whole ({@link #markWholeIfGrown}) and shorter than
     * its header says was cut short after it was whole, and lost pages: it is refused.
     *
     * @param channel the file, open for reading
     * @param file    its path, for the messages
     * @param total   the total size in bytes that the manager being built needs, without the header
     * @return whether the file holds a valid header and no page byte, so that the build should make it again
     *         (write its own header) as it makes an empty file
     * @throws IOException              if the file cannot be read
     * @throws IllegalArgumentException if the file is not a manager's (no magic), its header is of another format
     *                                  version or has sizes that cannot be used, it is marked whole but is shorter
     *                                  than its header says (the message names the file, its length and the length
     *                                  it had), or it was made for a smaller total
     */
    public static boolean check(FileChannel channel, Path file, long total) throws IOException {
        long size = channel.size();
        ByteBuffer header = readStart(channel, (int) Math.min(FIELDS, size), file);
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
        int whole = header.getInt(WHOLE_AT);
        if (headerBytes != BYTES || reserved != 0 || pageSize < MIN_PAGE_SIZE || pageSize > MAX_PAGE_SIZE
                || Integer.bitCount(pageSize) != 1 || madeFor <= 0 || madeFor % pageSize != 0
                || madeFor > Long.MAX_VALUE - BYTES || (whole != 0 && whole != WHOLE)) {
            throw new IllegalArgumentException("mapped file " + file + " has a memory manager's header with sizes this"
                    + " build cannot use (header bytes " + headerBytes + ", page size " + pageSize + ", total "
                    + madeFor + ", reserved field " + reserved + ", whole field " + whole + "; it writes header bytes "
                    + BYTES + ", a power-of-two page size from " + MIN_PAGE_SIZE + " to " + MAX_PAGE_SIZE + ", a positive"
                    + " total that is a multiple of it, 0, and 0 or " + WHOLE + "): the header is damaged; name another"
                    + " file, or delete it if it is yours to lose");
        }
        if (whole == WHOLE && size < BYTES + madeFor) {
            throw new IllegalArgumentException("mapped file " + file + " is a memory manager's file cut short: it holds "
                    + size + " bytes, but it was whole at " + (BYTES + madeFor) + " bytes (a header of " + BYTES
                    + " and " + madeFor + " bytes of pages), so the pages past its end are lost; restore it from a copy,"
                    + " or delete it if its pages are yours to lose");
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

    /**
     * Marks the header of a file that has reached its full length ({@link #BYTES} plus the total its header says)
     * as whole, so that a later {@link #check} refuses the file if it is cut short. Syncs the file's length before
     * it writes the mark, and the mark after, so that no crash of the machine leaves a mark on a file whose length
     * is lost. Does nothing to a file already marked, or one still shorter than its header says (a build of a
     * smaller total leaves the rest of such a file to the build that grows it). Call it only on a file that
     * {@link #check} or {@link #write} has made a manager's, with the file locked against other builds.
     *
     * @param channel the file, open for reading and writing
     * @return whether the file is marked whole now
     * @throws IOException if the file cannot be read, written or synced
     */
    public static boolean markWholeIfGrown(FileChannel channel) throws IOException {
        ByteBuffer header = readStart(channel, FIELDS, "the file");
        if (header.getInt(WHOLE_AT) == WHOLE) {
            return true;
        }
        if (channel.size() < BYTES + header.getLong(TOTAL_AT)) {
            return false;
        }
        channel.force(true);
        ByteBuffer mark = ByteBuffer.allocate(Integer.BYTES).order(ByteOrder.LITTLE_ENDIAN).putInt(0, WHOLE);
        writeAt(channel, mark, WHOLE_AT);
        channel.force(true);
        return true;
    }

    /**
     * @return the file's first {@code bytes} bytes, little-endian, position at their end
     * @throws EOFException naming {@code name} if the file ends before them
     */
    private static ByteBuffer readStart(FileChannel channel, int bytes, Object name) throws IOException {
        ByteBuffer header = ByteBuffer.allocate(bytes).order(ByteOrder.LITTLE_ENDIAN);
        while (header.hasRemaining()) {
            if (channel.read(header, header.position()) < 0) {
                throw new EOFException(name + " ended at " + header.position() + " bytes while its header was read");
            }
        }
        return header;
    }

    /** Writes what remains of {@code bytes} at file offset {@code at} + its position, all of it. */
    private static void writeAt(FileChannel channel, ByteBuffer bytes, long at) throws IOException {
        while (bytes.hasRemaining()) {
            channel.write(bytes, at + bytes.position());
        }
    }
}
