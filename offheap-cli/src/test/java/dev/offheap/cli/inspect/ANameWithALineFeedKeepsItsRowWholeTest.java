package dev.offheap.cli.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A manager, allocator, cache or owner may be named with any characters, a line feed or a tab among them
 * (their MBeans quote such names). The text printed them as they are: a line feed split the object's row in
 * two, its numbers under the next column of names, and a tab pushed the row out of its columns. The text now
 * shows a control character as an escape (backslash n, backslash t, backslash u0007 for a bell); the JSON has the name as it is.
 */
class ANameWithALineFeedKeepsItsRowWholeTest {
    private static Snapshot snapshot() {
        Snapshot.Manager manager = new Snapshot.Manager("two\nlines", "NATIVE", 32768, 1 << 20, 32, 1, 31, 0, 32768,
                32768, 0, 0, 0, 0, Map.of("owner\tone", 32768L), List.of());
        Snapshot.Allocator allocator = new Snapshot.Allocator("tab\there", "pooled", "OFF", 16, 1, 65536, -1, 1, "", -1, -1,
                0, "a report");
        Snapshot.Cache cache = new Snapshot.Cache("bell\u0007cache\r", 1 << 20, 1024, 1, 100, 0.5, 1, 1, 1, 0, 0, 0, 0);
        return new Snapshot(42, Instant.EPOCH, "Main, a JVM", 1000, 1, 2, 3, List.of(), null, -1, -1, List.of(manager),
                List.of(allocator), List.of(cache));
    }

    @Test
    void controlCharactersInNamesAreShownEscapedAndEachRowStaysOneLine() {
        String text = SnapshotReport.text(snapshot());
        assertThat(text).containsPattern("(?m)^  two\\\\nlines +NATIVE +32\\.0 KiB ")
                .containsPattern("(?m)^  tab\\\\there +pooled +off +16 B ")
                .containsPattern("(?m)^  bell\\\\u0007cache\\\\r +1\\.0 MiB ")
                .contains("owners of 'two\\nlines': owner\\tone 32.0 KiB")
                .contains("Report of allocator 'tab\\there':");
        assertThat(text).doesNotContain("\t").doesNotContain("\r").doesNotContain("\u0007");
        assertThat(text.lines()).noneMatch(l -> l.startsWith("lines") || l.startsWith("here"));
    }

    @Test
    void theJsonHasTheNamesAsTheyAre() {
        Map<String, Object> doc = SnapshotReport.jsonTree(snapshot());
        assertThat(doc.get("memoryManagers").toString()).contains("two\nlines").contains("owner\tone");
        assertThat(doc.get("caches").toString()).contains("bell\u0007cache\r");
    }
}
