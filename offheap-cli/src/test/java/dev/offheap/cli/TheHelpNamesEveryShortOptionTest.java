package dev.offheap.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.offheap.cli.compare.CompareCommand;
import dev.offheap.cli.compare.CompareOptions;
import dev.offheap.cli.serve.ServeCommand;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * compare, serve and bench take short names of their options ({@code -t} for {@code --threads}, {@code -s} for
 * {@code --value-size}, ...), but their --help named none of them but {@code -h}: a short name was found only by
 * reading the source, or by a "given twice (-t is --threads)". Each --help now names every short name with its
 * option, and says how a value is written.
 */
class TheHelpNamesEveryShortOptionTest {
    @Test
    void compareNamesItsShortOptions() {
        String help = new CompareCommand().help();
        assertThat(help).contains("-s --value-size", "-e --max-entries", "-t --threads", "-n --requests",
                "-d --duration", "-r --rate", "-w --warmup", "-k --keys", "-o --out", "--threads=4 or -t=4");
        // each named short option is one compare reads
        assertThatCode(() -> CompareOptions.parse(List.of("-s", "1000", "-e", "10", "-t", "2", "-d", "1s", "-r", "10",
                "-w", "0", "-k", "20", "-o", "x", "--loader", "memory"))).doesNotThrowAnyException();
    }

    @Test
    void serveNamesItsShortOptions() {
        String help = new ServeCommand().help();
        assertThat(help).contains("-p --port", "-s --value-size", "-e --max-entries", "-k --keys", "-t --threads",
                "--threads=4 or -t=4");
    }

    @Test
    void benchNamesItsShortOptions() {
        String help = new BenchCommand().help();
        assertThat(help).contains("-o --out", "-i --include", "-t --threads", "-p --param", "--threads=4 or -t=4");
    }
}
