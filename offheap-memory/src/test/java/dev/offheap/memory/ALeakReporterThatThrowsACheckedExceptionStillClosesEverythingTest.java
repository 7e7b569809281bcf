package dev.offheap.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.IOException;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * A leak reporter is a {@code Consumer<String>}, but a reporter written in Kotlin (or with a "sneaky throw")
 * may throw a checked exception, such as the {@link IOException} of a reporter that appends to a file.
 * {@link Budget#close()} caught only RuntimeException and Error from the reporter, so a checked one escaped
 * from the middle of close: the budget was marked closed, yet its children stayed open and its bytes were
 * never returned to its parent, where they stayed charged for good. Now close gives the reporter's exception
 * out as it does the others: after the budget and its children are closed and their bytes returned.
 */
class ALeakReporterThatThrowsACheckedExceptionStillClosesEverythingTest {

    @SuppressWarnings("unchecked")
    private static <T extends Throwable> void sneakyThrow(Throwable t) throws T {
        throw (T) t;
    }

    private static Consumer<String> reporterThatThrows(IOException e) {
        return report -> sneakyThrow(e);
    }

    @Test
    void aBudgetsOwnReportThatThrowsStillClosesItsChildrenAndReturnsItsBytes() {
        IOException diskFull = new IOException("disk full");
        Budget process = Budget.root("process", 10_000, reporterThatThrows(diskFull));
        Budget cache = process.child("cache", 5_000, 100);
        Budget request = cache.child("request", 1_000, 50);
        request.reserve(30);
        cache.reserve(200);
        assertThat(process.used()).isEqualTo(50 + 200);

        Throwable thrown = catchThrowable(cache::close);

        assertThat(thrown).isSameAs(diskFull);
        assertThat(cache.isClosed()).isTrue();
        assertThat(request.isClosed()).as("the child is closed although the parent's report threw").isTrue();
        assertThat(process.children()).isEmpty();
        assertThat(process.used()).as("every byte is back with the parent").isZero();
        process.close();
    }

    @Test
    void aChildsReportThatThrowsDoesNotStopItsParentsClose() {
        IOException diskFull = new IOException("disk full");
        Budget process = Budget.root("process", 10_000, reporterThatThrows(diskFull));
        Budget cache = process.child("cache", 5_000);
        Budget leaky = cache.child("leaky", 1_000);
        Budget other = cache.child("other", 1_000, 400);
        leaky.reserve(70);
        assertThat(process.used()).isEqualTo(470);

        Throwable thrown = catchThrowable(cache::close);

        assertThat(thrown).isSameAs(diskFull);
        assertThat(leaky.isClosed()).isTrue();
        assertThat(other.isClosed()).isTrue();
        assertThat(cache.isClosed()).isTrue();
        assertThat(process.children()).isEmpty();
        assertThat(process.used()).isZero();
        process.close();
    }
}
