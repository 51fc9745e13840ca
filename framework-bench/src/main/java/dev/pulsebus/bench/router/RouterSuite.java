package dev.pulsebus.bench.router;

import dev.pulsebus.bench.harness.JmhSuite;
import dev.pulsebus.bench.harness.Suite;
import java.util.List;

/** The {@code router} suite: command matching beside a hand-written split-and-map router and a regex. */
public final class RouterSuite {

    private RouterSuite() {
    }

    public static Suite create() {
        return new JmhSuite("router", RouterBench.class, List.of("naive_split_hashmap", "regex_alternation"),
                List.of(
                        new JmhSuite.RowSpec("command_hit", false,
                                "'/bench 1' -> handler done (it parses its number); 101 commands registered",
                                new JmhSuite.Target(10e6, null, 0, -1)),
                        new JmhSuite.RowSpec("command_miss", false, "plain text, no prefix",
                                new JmhSuite.Target(100e6, null, 0, 0.5)),
                        new JmhSuite.RowSpec("command_unknown", false, "'/nosuchcommand'",
                                new JmhSuite.Target(20e6, null, 0, 0.5)),
                        new JmhSuite.RowSpec("command_hit_cooldown_checked", false,
                                "a hit with a cooldown and a rate limit, 10,000 users cycling through "
                                        + "4096-key tables (every call evicts)",
                                new JmhSuite.Target(3e6, null, 0, -1))));
    }
}
