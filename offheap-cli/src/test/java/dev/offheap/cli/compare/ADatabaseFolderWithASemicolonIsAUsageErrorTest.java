package dev.offheap.cli.compare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.offheap.cli.Main;
import dev.offheap.cli.serve.ServeCommand;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * H2 reads everything after a {@code ;} in its JDBC URL as settings, and the database folder went into the
 * URL as it was: {@code --db "runs;2024"} could never be opened, and said so as "the offer database ... is
 * corrupt (URL format error ...); rebuilding it" followed by "the rebuilt offer database ... is unreadable";
 * a folder named {@code x;INIT=RUNSCRIPT FROM 'file'} ran that script. Such a folder is a usage error now.
 */
class ADatabaseFolderWithASemicolonIsAUsageErrorTest {
    @TempDir
    Path dir;

    @Test
    void compareRefusesIt() throws Exception {
        Path db = Files.createDirectories(dir.resolve("runs;2024"));
        CliRun r = CliRun.of(new CompareCommand(), "compare", "--variants", "on-heap", "--value-size", "100",
                "--max-entries", "10", "--threads", "1", "--requests", "100", "--warmup", "0", "--heap", "64m",
                "--db", db.toString(), "--out", dir.resolve("out").toString());
        assertThat(r.code()).as(r.out() + r.err()).isEqualTo(Main.USAGE);
        assertThat(r.err()).startsWith("offheap compare: --db: H2 cannot open a database in a folder whose path has a ';'")
                .contains(db.toString());
        assertThat(r.out()).doesNotContain("corrupt").doesNotContain("[1/1]");
        // the in-memory loader has no database, so no folder to refuse
        assertThat(CompareOptions.parse(List.of("--loader", "memory")).loader()).isEqualTo(Workload.Loader.MEMORY);
    }

    @Test
    void serveRefusesIt() {
        CliRun r = CliRun.of(new ServeCommand(), "serve", "--port", "0", "--db", dir.resolve("a;b").toString(),
                "--stop-after", "100ms");
        assertThat(r.code()).as(r.out() + r.err()).isEqualTo(Main.USAGE);
        assertThat(r.err()).startsWith("offheap serve: --db: H2 cannot open a database in a folder whose path has a ';'");
    }

    @Test
    void theStoreRefusesItWithoutTouchingTheFolder() throws Exception {
        Path db = Files.createDirectories(dir.resolve("x;y"));
        Files.writeString(db.resolve("offers.mv.db"), "someone else's file");
        List<String> log = new ArrayList<>();
        assertThatThrownBy(() -> H2OfferStore.open(db, 10, 100, 1, log::add)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("has a ';'");
        assertThat(log).isEmpty();
        assertThat(db.resolve("offers.mv.db")).hasContent("someone else's file");
    }
}
