package dev.offheap.cli.compare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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
    private final ReadOnlyPath readOnly = new ReadOnlyPath();

    @AfterEach
    void writable() throws Exception {
        readOnly.undo();
        dir.resolve("db").toFile().setWritable(true, true);
    }

    @Test
    void anUnwritableFolderWithoutADatabaseSaysSo() throws Exception {
        Path db = Files.createDirectories(dir.resolve("db"));
        readOnly.make(db);
        assertThatThrownBy(() -> H2OfferStore.open(db, 10, 100, 1, log::add)).isInstanceOf(IllegalStateException.class)
                .hasMessage("cannot create the offer database in " + db + ": the folder is not writable; give another"
                        + " folder with --db");
        assertThat(log).noneMatch(l -> l.contains("corrupt"));
    }
}
