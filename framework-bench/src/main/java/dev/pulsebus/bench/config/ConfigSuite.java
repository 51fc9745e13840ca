package dev.pulsebus.bench.config;

import dev.pulsebus.bench.harness.JmhSuite;
import dev.pulsebus.bench.harness.Suite;
import java.util.List;

/** The {@code config} suite: a hot read and a lazy (coalesced, background-flushed) write. */
public final class ConfigSuite {

    private ConfigSuite() {
    }

    public static Suite create() {
        return new JmhSuite("config", ConfigBench.class, List.of(), List.of(
                new JmhSuite.RowSpec("get_hot", false, "config.getInt of a present key: a volatile read and a map lookup",
                        JmhSuite.Target.atLeast(200e6).allocAtMost(1)),
                new JmhSuite.RowSpec("set_lazy", false, "config.set: a new snapshot at once, the runtime file written"
                        + " in the background at most every 200 ms", JmhSuite.Target.atLeast(1e6))));
    }
}
