package dev.offheap.cli.compare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * For tests: makes a file or folder read-only, by its permission and, where that does not hold (root), by
 * the immutable attribute, which root's writes respect too; {@link #undo()} takes the attribute off again.
 */
final class ReadOnlyPath {
    private Path immutable;

    /** Makes {@code path} read-only, or skips the test where this user can write it all the same. */
    void make(Path path) throws Exception {
        assertThat(path.toFile().setWritable(false, false)).isTrue();
        if (Files.isWritable(path)) {
            try {
                Process chattr = new ProcessBuilder("chattr", "+i", path.toString()).redirectErrorStream(true).start();
                if (chattr.waitFor(10, TimeUnit.SECONDS) && chattr.exitValue() == 0) {
                    immutable = path;
                }
            } catch (IOException e) {
                // no chattr here
            }
        }
        assumeFalse(Files.isWritable(path), "this user can write a read-only " + (Files.isDirectory(path) ? "folder"
                : "file") + " here (root without chattr)");
    }

    /** Takes off the immutable attribute that {@link #make} set, if it set one. */
    void undo() throws Exception {
        if (immutable != null) {
            new ProcessBuilder("chattr", "-i", immutable.toString()).start().waitFor(10, TimeUnit.SECONDS);
            immutable = null;
        }
    }
}
