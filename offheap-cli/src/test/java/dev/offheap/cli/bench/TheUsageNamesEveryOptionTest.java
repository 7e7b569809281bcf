package dev.offheap.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.offheap.cli.BenchCommand;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code offheap bench}'s usage lines, which a bad command line prints, left out {@code --forks}, which its
 * help's option list has (and the README's synopsis, copied from them, too). Now every option of the list is
 * in the usage.
 */
class TheUsageNamesEveryOptionTest {
    @Test
    void everyOptionOfTheHelpIsInTheUsage() {
        BenchCommand bench = new BenchCommand();
        String help = bench.help();
        String options = help.substring(help.indexOf("Options:"));
        Matcher m = Pattern.compile("(?m)^  (--[a-z-]+)").matcher(options);
        int seen = 0;
        while (m.find()) {
            seen++;
            assertThat(bench.usage()).as("the usage lines").contains(m.group(1));
        }
        assertThat(seen).isGreaterThan(5);
    }
}
