package dev.offheap.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.offheap.cli.bench.Suite;
import dev.offheap.cli.bench.Suites;
import dev.offheap.cli.compare.CompareOptions;
import dev.offheap.cli.compare.Variant;
import dev.offheap.cli.compare.Workload;
import dev.offheap.cli.serve.ServeCommand;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code --gc ZGC} and a size's unit ({@code 2G}) were read in any case, but {@code --heap AUTO},
 * {@code --warmup Auto}, {@code --loader MEMORY}, {@code --variants OHC} and bench's {@code --prof GC} were
 * refused, and {@code --heap} and {@code --warmup}'s messages did not say that {@code auto} is a value. Every
 * keyword of compare, serve and bench is now read in any case, and those two messages name {@code auto}.
 */
class KeywordsAreReadInAnyCaseTest {
    @Test
    void compareReadsItsKeywordsInAnyCase() throws UsageException {
        CompareOptions o = CompareOptions.parse(List.of("--heap", "AUTO", "--warmup", "Auto", "--gc", "ZGC",
                "--loader", "MEMORY", "--variants", "ON-HEAP,Ohc"));
        assertThat(o.heap()).isZero();
        assertThat(o.warmupRequests()).isEqualTo(CompareOptions.AUTO);
        assertThat(o.collector()).isEqualTo(CompareOptions.Collector.ZGC);
        assertThat(o.loader()).isEqualTo(Workload.Loader.MEMORY);
        assertThat(o.variants()).containsExactly(Variant.ON_HEAP, Variant.OHC);
        assertThat(CompareOptions.parse(List.of("--loader", "DB", "--db", "x")).loader())
                .isEqualTo(Workload.Loader.DATABASE);
    }

    @Test
    void serveReadsItsKeywordsInAnyCase() throws UsageException {
        ServeCommand.Args a = ServeCommand.parse(List.of("--variant", "OFF-HEAP-COPY", "--loader", "Memory"));
        assertThat(a.variant()).isEqualTo(Variant.OFF_HEAP_COPY);
        assertThat(a.memoryLoader()).isTrue();
    }

    @Test
    void benchReadsItsProfilerInAnyCase() throws UsageException {
        BenchCommand bench = new BenchCommand(new Suites(List.of(new Suite("tiny", "dev.offheap.cli.testbench",
                "a test-only benchmark", Map.of("size", List.of("16"))))), List::of);
        assertThat(bench.parse(List.of("tiny", "--prof", "GC")).gcProfiler()).isTrue();
    }

    @Test
    void heapAndWarmupSayThatAutoIsAValue() {
        assertThatThrownBy(() -> CompareOptions.parse(List.of("--heap", "automatic")))
                .isInstanceOf(UsageException.class).hasMessageStartingWith("--heap: expected")
                .hasMessageEndingWith("; or auto (the default)");
        assertThatThrownBy(() -> CompareOptions.parse(List.of("-w", "automatic")))
                .isInstanceOf(UsageException.class).hasMessageStartingWith("-w: expected a whole number from 0")
                .hasMessageEndingWith("; or auto (the default)");
    }

    @Test
    void anUnknownKeywordIsNamedAsGiven() {
        assertThatThrownBy(() -> CompareOptions.parse(List.of("--gc", "Shenandoah")))
                .isInstanceOf(UsageException.class)
                .hasMessage("--gc: unknown collector 'Shenandoah' (collectors: g1, zgc, parallel)");
    }
}
