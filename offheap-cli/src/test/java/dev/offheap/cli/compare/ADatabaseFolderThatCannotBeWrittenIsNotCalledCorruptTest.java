package dev.offheap.cli.compare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --db} naming a folder the user cannot write, with no database in it yet (another user's cache, a
 * read-only mount): H2 could not create the file, and the store said "the offer database ... is corrupt (IO
 * Exception ...); rebuilding it", then "the rebuilt offer database ... is unreadable", of a database that
 * never existed. Now it says that the folder cannot be written.
 */
class ADatabaseFolderThatCannotBeWrittenIsNotCalledCorruptTest {
    @TempDir
    Path dir;

    private final List<String> log = new ArrayList<>();
    private Path immutable;

    /** Makes the folder unwritable: its permission, and where that does not hold (root) the immutable attribute. */
    private void makeReadOnly(Path folder) throws Exception {
        assertThat(folder.toFile().setWritable(false, false)).isTrue();
        if (Files.isWritable(folder)) {
            try {
                Process chattr = new ProcessBuilder("chattr", "+i", folder.toString()).redirectErrorStream(true).start();
                if (chattr.waitFor(10, TimeUnit.SECONDS) && chattr.exitValue() == 0) {
                    immutable = folder;
                }
            } catch (java.io.IOException e) {
                // no chattr here
            }
        }
        assumeFalse(Files.isWritable(folder), "this user can write a read-only folder here (root without chattr)");
    }

    @AfterEach
    void writable() throws Exception {
        if (immutable != null) {
            new ProcessBuilder("chattr", "-i", immutable.toString()).start().waitFor(10, TimeUnit.SECONDS);
        }
        dir.resolve("db").toFile().setWritable(true, true);
    }

    @Test
    void anUnwritableFolderWithoutADatabaseSaysSo() throws Exception {
        Path db = Files.createDirectories(dir.resolve("db"));
        makeReadOnly(db);
        assertThatThrownBy(() -> H2OfferStore.open(db, 10, 100, 1, log::add)).isInstanceOf(IllegalStateException.class)
                .hasMessage("cannot create the offer database in " + db + ": the folder is not writable; give another"
                        + " folder with --db");
        assertThat(log).noneMatch(l -> l.contains("corrupt"));
    }
}
