package dev.offheap.cli.compare;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/** The open loop's request threads wake on time: their timer slack goes to 1 ns, theirs only. */
class TimerSlackTest {
    @Test
    @EnabledOnOs(OS.LINUX)
    void minimizingSetsTheCallingThreadsSlackOnly() throws Exception {
        long before = TimerSlack.current();
        assertThat(before).as("Linux's default for a normal thread").isPositive();
        AtomicLong inThread = new AtomicLong(-2);
        AtomicLong afterMinimize = new AtomicLong(-2);
        Thread t = Thread.ofPlatform().start(() -> {
            inThread.set(TimerSlack.minimize() ? 1 : 0);
            afterMinimize.set(TimerSlack.current());
        });
        t.join();
        assertThat(inThread.get()).isEqualTo(1);
        assertThat(afterMinimize.get()).isEqualTo(1);
        assertThat(TimerSlack.current()).as("the test thread's own slack").isEqualTo(before);
    }
}
