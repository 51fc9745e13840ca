package dev.pulsebus.irc;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.ToDoubleFunction;

/**
 * The adapter's counts, and their meters under {@code pulsebus_irc_*} (tag {@code server}), removed at stop:
 * {@code pulsebus_irc_up} (1 while registered), {@code pulsebus_irc_lag_seconds} (the last PING's round
 * trip), {@code pulsebus_irc_connects_total}, {@code pulsebus_irc_lines_received_total},
 * {@code pulsebus_irc_lines_sent_total}, {@code pulsebus_irc_queued_lines}, {@code
 * pulsebus_irc_dropped_lines_total} (sends refused by a full queue, in lines), {@code
 * pulsebus_irc_dropped_events_total} (events refused by a full lane). Counting is a {@link LongAdder} add.
 */
final class IrcMetrics {

    final LongAdder connects = new LongAdder();
    final LongAdder received = new LongAdder();
    final LongAdder sent = new LongAdder();
    final LongAdder droppedLines = new LongAdder();
    final LongAdder droppedEvents = new LongAdder();
    /** The last lag measured, in ns; -1 before the first. */
    final AtomicLong lagNanos = new AtomicLong(-1);
    private final List<Meter> meters = new ArrayList<>();
    private final MeterRegistry registry;

    IrcMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    /** Registers the meters; {@code up} and {@code queued} read the adapter's state at each scrape. */
    <T> void bind(String server, T adapter, ToDoubleFunction<T> up, ToDoubleFunction<T> queued) {
        meters.add(Gauge.builder("pulsebus.irc.up", adapter, up).tag("server", server)
                .description("1 while the bot is connected and registered with the IRC server").register(registry));
        meters.add(Gauge.builder("pulsebus.irc.lag", lagNanos, l -> l.get() < 0 ? Double.NaN : l.get() / 1e9)
                .tag("server", server).baseUnit("seconds")
                .description("Round trip of the last PING the bot sent to the IRC server").register(registry));
        meters.add(Gauge.builder("pulsebus.irc.queued.lines", adapter, queued).tag("server", server)
                .description("Lines waiting for the flood control").register(registry));
        meters.add(counter("pulsebus.irc.connects", server, connects, "Connections registered with the server"));
        meters.add(counter("pulsebus.irc.lines.received", server, received, "Lines read from the server"));
        meters.add(counter("pulsebus.irc.lines.sent", server, sent, "Lines the bot said (flood-controlled)"));
        meters.add(counter("pulsebus.irc.dropped.lines", server, droppedLines,
                "Lines of sends refused because the send queue was full"));
        meters.add(counter("pulsebus.irc.dropped.events", server, droppedEvents,
                "Messages not handed to the pipeline because their chat's lane was full"));
    }

    private FunctionCounter counter(String name, String server, LongAdder adder, String what) {
        return FunctionCounter.builder(name, adder, LongAdder::sum).tag("server", server).description(what)
                .register(registry);
    }

    /** Removes the meters from the registry. */
    void unbind() {
        for (Meter m : meters) {
            registry.remove(m);
        }
        meters.clear();
    }
}
