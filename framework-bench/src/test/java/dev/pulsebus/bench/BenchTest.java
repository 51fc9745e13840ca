package dev.pulsebus.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BenchTest {

    @Test
    void theSuitesRunInTheirOrderUnderTheirNames() {
        assertThat(Bench.suites().keySet()).containsExactly("config", "event", "router", "conversation", "bridge", "send",
                "storage", "module", "http", "longpoll", "overall", "adapter", "startup",
                "cluster");
        Bench.suites().forEach((name, suite) -> assertThat(suite.name()).isEqualTo(name));
    }
}
