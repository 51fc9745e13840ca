package dev.pulsebus.bench.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class JmhSuiteTest {

    private static Row row(double ops, double guava, double alloc, Double p99) {
        return new Row("event", "event.x", "ops/s", ops, null, null, p99, null, null, alloc, 5,
                Map.of("guava_eventbus", guava), "");
    }

    @Test
    void aTargetSaysWhatItWantsAndWhatWasMissed() {
        JmhSuite.Target t = JmhSuite.Target.atLeast(40e6).andRatioTo("guava_eventbus", 4.0).allocAtMost(0.5);

        assertThat(t.check(row(50e6, 10e6, 0.0, null)))
                .isEqualTo("target >= 40.0 M ops/s, >= 4.0x guava_eventbus, ~0 B/op: met");
        assertThat(t.check(row(30e6, 10e6, 24.0, null)))
                .isEqualTo("target >= 40.0 M ops/s, >= 4.0x guava_eventbus, ~0 B/op: MISSED (ops/s, ratio to"
                        + " guava_eventbus, B/op)");
    }

    @Test
    void aRatioAloneAsksForAnyThroughputAndAP99BoundShows() {
        assertThat(JmhSuite.Target.ratioTo("guava_eventbus", 1.0).check(row(5e5, 1e6, 0.0, null)))
                .isEqualTo("target >= 0.0 ops/s, >= 1.0x guava_eventbus: MISSED (ratio to guava_eventbus)");
        assertThat(JmhSuite.Target.atLeast(120e3).p99AtMost(15).check(row(150e3, 1, 100.0, 12.0)))
                .isEqualTo("target >= 120.0 k ops/s, p99 <= 15 us: met");
    }

    @Test
    void everyRatioIsCheckedAndAByteBoundShowsItsBytes() {
        JmhSuite.Target t = JmhSuite.Target.ratioTo("jackson_tokens", 0.7).andRatioTo("jackson_tree", 1.3)
                .allocAtMost(2048);
        Row row = new Row("adapter", "adapter.x", "ops/s", 4e5, null, null, null, null, null, 1500.0, 5,
                Map.of("jackson_tokens", 5e5, "jackson_tree", 3.2e5), "");

        assertThat(t.check(row)).isEqualTo("target >= 0.0 ops/s, >= 0.7x jackson_tokens, >= 1.3x jackson_tree,"
                + " <= 2048 B/op: MISSED (ratio to jackson_tree)");
    }
}
