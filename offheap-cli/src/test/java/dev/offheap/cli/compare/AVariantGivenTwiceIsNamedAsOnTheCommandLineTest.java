package dev.offheap.cli.compare;

import static org.assertj.core.api.Assertions.assertThat;

import dev.offheap.cli.Main;
import org.junit.jupiter.api.Test;

/**
 * {@code --variants on-heap,ohc,on-heap} was refused with "the list [ON_HEAP, OHC, ON_HEAP] names a value
 * twice": the Java constants, which the user never typed and which no option accepts. The message names
 * the variants by their labels, and which one is repeated.
 */
class AVariantGivenTwiceIsNamedAsOnTheCommandLineTest {
    @Test
    void theUsageMessageUsesTheLabels() {
        CliRun r = CliRun.of(new CompareCommand(), "compare", "--dry-run", "--variants", "on-heap,ohc,on-heap");
        assertThat(r.code()).isEqualTo(Main.USAGE);
        assertThat(r.err()).startsWith("offheap compare: --variants: the list [on-heap, ohc, on-heap] names on-heap twice")
                .doesNotContain("ON_HEAP");
    }

    @Test
    void sizesAreNamedInBytes() {
        CliRun r = CliRun.of(new CompareCommand(), "compare", "--dry-run", "--value-size", "1k,1024");
        assertThat(r.code()).isEqualTo(Main.USAGE);
        assertThat(r.err()).startsWith("offheap compare: --value-size: the list [1024, 1024] names 1024 twice");
    }
}
