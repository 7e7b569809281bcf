package dev.offheap.cli.serve;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * {@code offheap serve --help} gave the database folder's default as {@code ~/.cache/offheap/compare}, but
 * where {@code $XDG_CACHE_HOME} is set serve (as compare, whose help says so) uses the folder under it.
 */
class TheHelpNamesTheDatabaseFolderThatIsUsedTest {
    @Test
    void theDefaultDatabaseFolderUnderXdgCacheHomeIsNamed() {
        String help = new ServeCommand().help();
        assertThat(help).contains("--db DIR").contains("~/.cache/offheap/compare").contains("$XDG_CACHE_HOME");
    }
}
