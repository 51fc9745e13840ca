package dev.pulsebus.bus;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The bus's counters, kept in {@link LongAdder}s that the hot path increments without a lock, and exposed
 * to Micrometer as function counters read at scrape time. The {@code type} label is bounded: past
 * {@link #MAX_TYPES} event classes, further ones share the label {@code other}.
 */
final class BusMetrics {

    static final int MAX_TYPES = 256;
    static final String OTHER = "other";

    final LongAdder dead = new LongAdder();
    private final MeterRegistry registry;
    /**
     * Per event class, kept by the class itself ({@link ClassValue}): a module's event classes do not
     * outlive its class loader because the bus once saw them.
     */
    private final ClassValue<TypeMeters> byClass = new ClassValue<>() {
        @Override
        protected TypeMeters computeValue(Class<?> type) {
            String label = byLabel.size() < MAX_TYPES ? type.getName() : OTHER;
            TypeMeters m = byLabel.get(label);
            if (m == null) {
                synchronized (registering) { // once per label: its meters are registered once
                    m = byLabel.get(label);
                    if (m == null) {
                        m = register(label);
                        byLabel.put(label, m);
                    }
                }
            }
            return m;
        }
    };
    private final ConcurrentHashMap<String, TypeMeters> byLabel = new ConcurrentHashMap<>();
    private final Object registering = new Object();
    private final List<Meter> meters = new ArrayList<>();

    BusMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    /** Counters and timers of one event type label. */
    static final class TypeMeters {
        final LongAdder published = new LongAdder();
        final LongAdder errors = new LongAdder();
        /** {@code null} without a registry: latency is then not timed at all. */
        final Timer inlineLatency;
        final Timer blockingLatency;

        TypeMeters(Timer inlineLatency, Timer blockingLatency) {
            this.inlineLatency = inlineLatency;
            this.blockingLatency = blockingLatency;
        }
    }

    boolean timed() {
        return registry != null;
    }

    /** Called on the slow path only, when a class is first resolved. */
    TypeMeters forType(Class<?> type) {
        return byClass.get(type);
    }

    private TypeMeters register(String label) {
        if (registry == null) {
            return new TypeMeters(null, null);
        }
        Timer inline = add(Timer.builder("pulsebus.handler.duration")
                .description("Handler run time; inline handlers are timed on a sample of events, so _count counts"
                        + " timed runs, not events (pulsebus_events_published_total counts events)")
                .tag("type", label).tag("mode", "inline").register(registry));
        Timer blocking = add(Timer.builder("pulsebus.handler.duration")
                .description("Handler run time; inline handlers are timed on a sample of events, so _count counts"
                        + " timed runs, not events (pulsebus_events_published_total counts events)")
                .tag("type", label).tag("mode", "blocking").register(registry));
        TypeMeters m = new TypeMeters(inline, blocking);
        add(FunctionCounter.builder("pulsebus.events.published", m.published, LongAdder::sum)
                .description("Events published on the bus").tag("type", label).register(registry));
        add(FunctionCounter.builder("pulsebus.handler.errors", m.errors, LongAdder::sum)
                .description("Handler and filter failures").tag("type", label).register(registry));
        return m;
    }

    void bindBus(BlockingLanes lanes, DefaultEventBus bus) {
        if (registry == null) {
            return;
        }
        add(FunctionCounter.builder("pulsebus.events.dead", dead, LongAdder::sum)
                .description("Events that no subscription accepted").register(registry));
        add(FunctionCounter.builder("pulsebus.bus.blocking.rejected", lanes, BlockingLanes::rejected)
                .description("Blocking tasks dropped because the pending bound was reached").register(registry));
        add(Gauge.builder("pulsebus.bus.blocking.pending", lanes, BlockingLanes::pending)
                .description("Blocking tasks accepted and not yet finished").register(registry));
        add(Gauge.builder("pulsebus.bus.blocking.max", lanes, BlockingLanes::maxPending)
                .description("The bound on pending blocking tasks").register(registry));
        add(Gauge.builder("pulsebus.bus.subscriptions", bus, DefaultEventBus::subscriptionCount)
                .description("Active subscriptions").register(registry));
    }

    private synchronized <M extends Meter> M add(M meter) {
        meters.add(meter);
        return meter;
    }

    synchronized void unbind() {
        if (registry != null) {
            meters.forEach(registry::remove);
        }
        meters.clear();
    }
}
