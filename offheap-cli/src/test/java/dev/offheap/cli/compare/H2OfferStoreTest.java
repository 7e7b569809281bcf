package dev.offheap.cli.compare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The database store: created on first use, completed, rebuilt when corrupt; and the in-memory store. */
class H2OfferStoreTest {
    @TempDir
    Path dir;

    private final List<String> log = new ArrayList<>();

    @Test
    void aMissingDatabaseIsCreatedAndLoadsTheGeneratedOffers() {
        try (H2OfferStore s = H2OfferStore.open(dir, 20, 5000, 2, log::add)) {
            assertThat(s.offers()).isEqualTo(20);
            assertThat(s.load(7)).hasSize(5000).isEqualTo(Offers.description(7, 5000)).startsWith("Offer 7: ");
            assertThat(s.describe()).contains(dir.resolve("offers.mv.db").toString());
        }
        assertThat(log).singleElement().asString().startsWith("created the offer database").contains("with 20 offers");
        log.clear();
        try (H2OfferStore s = H2OfferStore.open(dir, 30, 100, 1, log::add)) {
            assertThat(s.load(29)).isEqualTo(Offers.description(29, 100));
        }
        assertThat(log).singleElement().asString().startsWith("added to the offer database").contains("10 offers");
        log.clear();
        try (H2OfferStore s = H2OfferStore.open(dir, 25, 100, 1, log::add)) {
            assertThat(s.load(3)).isEqualTo(Offers.description(3, 100));
        }
        assertThat(log).as("a complete database is used as it is").isEmpty();
    }

    @Test
    void aCorruptFileIsRebuiltWithAMessage() throws Exception {
        H2OfferStore.open(dir, 10, 100, 1, log::add).close();
        Path file = dir.resolve("offers.mv.db");
        byte[] garbage = new byte[(int) Files.size(file)];
        java.util.Arrays.fill(garbage, (byte) 0x5A);
        Files.write(file, garbage);
        log.clear();
        try (H2OfferStore s = H2OfferStore.open(dir, 10, 100, 1, log::add)) {
            assertThat(s.load(9)).isEqualTo(Offers.description(9, 100));
        }
        assertThat(log.getFirst()).startsWith("the offer database " + file + " is corrupt (").endsWith("); rebuilding it");
        assertThat(log.get(1)).startsWith("created the offer database");
    }

    @Test
    void aDatabaseWithOtherDataIsRebuilt() throws Exception {
        H2OfferStore.open(dir, 10, 100, 1, log::add).close();
        try (Connection c = DriverManager.getConnection("jdbc:h2:file:" + dir.resolve("offers"), "sa", "");
                Statement s = c.createStatement()) {
            s.execute("UPDATE offers SET text = 'changed' WHERE id = 5");
        }
        log.clear();
        try (H2OfferStore s = H2OfferStore.open(dir, 10, 100, 1, log::add)) {
            assertThat(s.load(5)).isEqualTo(Offers.description(5, 100));
        }
        assertThat(log.getFirst()).contains("is corrupt (offer 5 does not hold the expected data); rebuilding it");
    }

    @Test
    void aDatabaseWithoutOurTablesIsRebuilt() throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:h2:file:" + dir.resolve("offers"), "sa", "");
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE unrelated(x INT)");
        }
        try (H2OfferStore s = H2OfferStore.open(dir, 3, 10, 1, log::add)) {
            assertThat(s.load(2)).isEqualTo(Offers.description(2, 10));
        }
        assertThat(log.getFirst()).contains("is corrupt (").contains("rebuilding it");
    }

    @Test
    void primingReadsEveryOfferOfTheStore() throws Exception {
        H2OfferStore s = H2OfferStore.open(dir, 8, 100, 1, log::add);
        s.prime();
        assertThat(s.load(7)).isEqualTo(Offers.description(7, 100));
        // a row gone from under the store: priming must reach it, and says which one
        try (Connection c = DriverManager.getConnection("jdbc:h2:file:" + dir.resolve("offers"), "sa", "");
                Statement st = c.createStatement()) {
            st.executeUpdate("DELETE FROM offers WHERE id = 7");
        }
        assertThatThrownBy(s::prime).isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("offer 7 is missing from the database");
        s.close();
        assertThatThrownBy(s::prime).isInstanceOf(IllegalStateException.class).hasMessage("the offer store is closed");
    }

    @Test
    void documentedExceptions() {
        assertThatThrownBy(() -> H2OfferStore.open(dir, 0, 10, 1, log::add)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("offers (0)");
        assertThatThrownBy(() -> H2OfferStore.open(dir, 1, 10, 0, log::add)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("connections (0)");
        H2OfferStore s = H2OfferStore.open(dir, 5, 10, 1, log::add);
        assertThatThrownBy(() -> s.load(5)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("offer id 5 is outside the store's 0..4");
        assertThatThrownBy(() -> s.load(-1)).isInstanceOf(IllegalArgumentException.class);
        s.close();
        s.close();
        assertThatThrownBy(() -> s.load(1)).isInstanceOf(IllegalStateException.class).hasMessage("the offer store is closed");
        Path file = dir.resolve("not-a-folder");
        assertThatThrownBy(() -> {
            Files.writeString(file, "x");
            H2OfferStore.open(file, 1, 1, 1, log::add);
        }).isInstanceOf(IllegalStateException.class).hasMessageContaining("cannot create the database folder");
    }

    @Test
    void memoryStoreWaitsItsLatencyAndChecksItsInput() {
        LatencyOfferStore s = new LatencyOfferStore(10, 300, Duration.ofMillis(20));
        long t0 = System.nanoTime();
        assertThat(s.load(4)).isEqualTo(Offers.description(4, 300));
        assertThat(System.nanoTime() - t0).isGreaterThanOrEqualTo(20_000_000L);
        assertThat(s.describe()).isEqualTo("in-memory loader, 20ms per load");
        assertThatThrownBy(() -> s.load(10)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("0..9");
        assertThatThrownBy(() -> new LatencyOfferStore(0, 1, Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new LatencyOfferStore(1, 0, Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new LatencyOfferStore(1, 1, Duration.ofNanos(-1)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /** Loading into memory gives the bytes of the string load, from the database and from the in-memory store. */
    @Test
    void loadIntoWritesTheSameBytesAsLoad() {
        try (H2OfferStore db = H2OfferStore.open(dir, 12, 5000, 1, log::add);
             Arena arena = Arena.ofConfined()) {
            LatencyOfferStore memory = new LatencyOfferStore(12, 5000, Duration.ZERO);
            for (OfferStore store : List.<OfferStore>of(db, memory)) {
                MemorySegment target = arena.allocate(5000);
                store.loadInto(11, target);
                assertThat(new String(target.toArray(ValueLayout.JAVA_BYTE), StandardCharsets.ISO_8859_1))
                        .isEqualTo(store.load(11));
                assertThatThrownBy(() -> store.loadInto(11, arena.allocate(4999)))
                        .isInstanceOf(IllegalStateException.class).hasMessageContaining("5000 bytes");
                assertThatThrownBy(() -> store.loadInto(12, target)).isInstanceOf(IllegalArgumentException.class);
            }
        }
        // the default, for loaders that only make strings, checks the size too
        OfferLoader strings = id -> "abc";
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment three = arena.allocate(3);
            strings.loadInto(0, three);
            assertThat(three.toArray(ValueLayout.JAVA_BYTE)).containsExactly('a', 'b', 'c');
            assertThatThrownBy(() -> strings.loadInto(0, arena.allocate(4))).isInstanceOf(IllegalStateException.class);
        }
        // against the text repeated and cut, not against description (which writes through describeInto too);
        // sizes around the text's length and its doublings, where the copies change
        String text = Offers.text(3);
        for (int size : new int[] {1, 7, 2047, 2048, 2049, 4095, 4096, 4097, 100_000}) {
            String expected = text.repeat(size / text.length() + 1).substring(0, size);
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment target = arena.allocate(size);
                target.fill((byte) 0x7f);
                Offers.describeInto(text, target);
                assertThat(new String(target.toArray(ValueLayout.JAVA_BYTE), StandardCharsets.ISO_8859_1))
                        .as("size %d", size).isEqualTo(expected);
            }
            assertThat(Offers.description(3, size)).isEqualTo(expected);
        }
    }

    @Test
    void offersAreDeterministicAndExactlySized() {
        assertThat(Offers.text(123)).hasSize(Offers.TEXT_BYTES).isEqualTo(Offers.text(123)).isNotEqualTo(Offers.text(124));
        assertThat(Offers.description(5, 1)).isEqualTo("O");
        assertThat(Offers.description(5, 100_000)).hasSize(100_000).startsWith(Offers.text(5))
                .matches("\\p{ASCII}+");
        assertThat(Offers.priceCents(9)).isBetween(100L, 1_000_000L);
        assertThatThrownBy(() -> Offers.text(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("offer ids are 0 or more, got -1");
        assertThatThrownBy(() -> Offers.description(1, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("description size must be positive, got 0 bytes");
        assertThatThrownBy(() -> Offers.description("", 5)).isInstanceOf(IllegalArgumentException.class);
    }
}
