package dev.pulsebus.bench.router;

import dev.pulsebus.bench.harness.JmhSuite;
import dev.pulsebus.bench.harness.Suite;
import java.util.List;

/** The {@code router} suite: command matching beside a hand-written split-and-map router and a regex. */
public final class RouterSuite {

    private RouterSuite() {
    }

    public static Suite create() {
        return new JmhSuite("router", RouterBench.class, List.of("naive_split_hashmap", "regex_alternation", "command_miss",
                "command_hit"),
                List.of(
                        new JmhSuite.RowSpec("command_hit", false,
                                "'/bench 1' -> handler done (it parses its number); 101 commands registered",
                                JmhSuite.Target.atLeast(10e6)),
                        // command_hit allocates 80 B/op (its Call): measuring costs must add nothing to it
                        new JmhSuite.RowSpec("command_hit_costed", false,
                                "the same hit, a module's command whose costs are measured (bus.cost_sample_every"
                                        + " = 16, fewer for calls this short); peer: command_hit alone",
                                JmhSuite.Target.ratioTo("command_hit", 0.95).allocAtMost(81)),
                        new JmhSuite.RowSpec("command_miss", false, "plain text, no prefix",
                                JmhSuite.Target.atLeast(100e6).allocAtMost(0.5)),
                        new JmhSuite.RowSpec("command_miss_with_asks", false,
                                "plain text through the pipeline's pending-ask probe, then the router, in a chat with "
                                        + "no ask while 4096 other chats have one; peer: command_miss alone",
                                JmhSuite.Target.ratioTo("command_miss", 0.9).allocAtMost(0.5)),
                        new JmhSuite.RowSpec("command_unknown", false, "'/nosuchcommand'",
                                JmhSuite.Target.atLeast(20e6).allocAtMost(0.5)),
                        new JmhSuite.RowSpec("command_hit_cooldown_checked", false,
                                "a hit with a cooldown and a rate limit, 10,000 users cycling through "
                                        + "4096-key tables (every call evicts)",
                                JmhSuite.Target.atLeast(3e6))));
    }
}
