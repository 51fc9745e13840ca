package dev.pulsebus.bench.event;

import dev.pulsebus.bench.harness.JmhSuite;
import dev.pulsebus.bench.harness.Suite;
import java.util.List;

/** The {@code event} suite: the bus's dispatch paths beside Guava's EventBus and a direct call. */
public final class EventSuite {

    private EventSuite() {
    }

    public static Suite create() {
        return new JmhSuite("event", EventBench.class, List.of("guava_eventbus", "direct_call"), List.of(
                new JmhSuite.RowSpec("single_handler", false,
                        "publish -> one inline handler, one thread",
                        JmhSuite.Target.atLeast(40e6).andRatioTo("guava_eventbus", 4.0).allocAtMost(0.5)),
                new JmhSuite.RowSpec("flood_1000", true,
                        "1000 events back to back per round; ops/s counts events, latency is per round",
                        JmhSuite.Target.atLeast(40e6).andRatioTo("guava_eventbus", 4.0).allocAtMost(0.5)),
                new JmhSuite.RowSpec("ten_handlers", false,
                        "one event to ten inline handlers of ten classes; ops/s counts events",
                        JmhSuite.Target.atLeast(15e6).andRatioTo("guava_eventbus", 3.0).allocAtMost(0.5)),
                new JmhSuite.RowSpec("blocking_handler", true,
                        "256 events in flight over 16 chats, each handler on a virtual thread, the publisher"
                                + " parked until the last is done; latency is one event alone, publish to handler"
                                + " done; peers: Guava AsyncEventBus and a bare virtual thread per event",
                        JmhSuite.Target.atLeast(1e6).andRatioTo("guava_eventbus", 1.0)),
                new JmhSuite.RowSpec("blocking_handler_contended", false,
                        "blocking_handler with a CPU hog thread per core spinning all along (a busy neighbour);"
                                + " peer: Guava AsyncEventBus under the same hogs",
                        JmhSuite.Target.ratioTo("guava_eventbus", 1.0))));
    }
}
