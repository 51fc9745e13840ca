package dev.pulsebus.bench.bridge;

import dev.pulsebus.bench.harness.JmhSuite;
import dev.pulsebus.bench.harness.Suite;
import java.util.List;

/** The {@code bridge} and {@code send} suites: the message pipeline in and out. */
public final class BridgeSuite {

    private BridgeSuite() {
    }

    public static Suite bridge() {
        return new JmhSuite("bridge", BridgeBench.class, List.of("single_handler"), List.of(
                new JmhSuite.RowSpec("single_handler", false,
                        "adapter -> dedupe -> transcript (in-memory store) -> router miss -> bus -> one handler",
                        JmhSuite.Target.atLeast(1e6)),
                new JmhSuite.RowSpec("single_handler_costed", false,
                        "the same, the handler and the commands a module's, their costs measured"
                                + " (bus.cost_sample_every = 16); peer: single_handler",
                        JmhSuite.Target.ratioTo("single_handler", 0.95)),
                new JmhSuite.RowSpec("single_handler_no_transcript", false, "the same without transcripts",
                        JmhSuite.Target.atLeast(1e6)),
                new JmhSuite.RowSpec("flood_5000", true,
                        "5000 messages back to back through the full chain; ops/s counts messages, latency per round",
                        null)));
    }

    public static Suite send() {
        return new JmhSuite("send", SendBench.class, List.of(), List.of(
                new JmhSuite.RowSpec("reply", false,
                        "event.reply -> adapter lookup -> in-memory adapter, sent message recorded",
                        JmhSuite.Target.atLeast(1e6))));
    }
}
