package dev.offheap.cli.serve;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** serve's last line said "stopped after 1 requests"; a count of one is written in the singular. */
class AStopAfterOneRequestSaysRequestTest {
    @Test
    void oneRequestIsSingularAndAnyOtherCountPlural() {
        assertThat(ServeCommand.stoppedLine(1)).isEqualTo("offheap serve: stopped after 1 request");
        assertThat(ServeCommand.stoppedLine(0)).isEqualTo("offheap serve: stopped after 0 requests");
        assertThat(ServeCommand.stoppedLine(2)).isEqualTo("offheap serve: stopped after 2 requests");
    }
}
