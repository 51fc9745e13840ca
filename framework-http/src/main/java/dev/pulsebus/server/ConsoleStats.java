package dev.pulsebus.server;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Measurement;
import io.micrometer.core.instrument.Statistic;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.core.instrument.distribution.ValueAtPercentile;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * {@code GET /api/admin/stats}: the few figures the console charts, as one small JSON object of running
 * totals and current values (the page turns totals into rates): events published, command calls by
 * outcome, handler latency (p50 and p99 of the slowest event type), command latency (p50 and p99 of the
 * slowest outcome: what a bot of commands alone shows, where no bus handler runs), long-poll waiters, open
 * connections, heap, GC pauses and KV writes.
 *
 * <p>Every open console asks once a second, so the answer must cost about what {@code /health} costs: it
 * is written at most once per {@link #FRESH_NANOS} and the same bytes go to every asker in between, like
 * {@code /health}'s. Writing it walks the registry's meters of these names, which a request then does not.
 */
final class ConsoleStats {

    /** How long one snapshot is served: a quarter of the console's one-second poll. */
    static final long FRESH_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

    static final String HANDLER_TIMER = "pulsebus.handler.duration";
    static final String COMMAND_TIMER = "pulsebus.command.duration";

    /**
     * Gives the handler and command timers a p50 and a p99 (kept in a decaying window by Micrometer), which
     * the console charts and {@code /metrics} then also shows as {@code quantile} series; set before the bus
     * and the command router register them.
     */
    static final MeterFilter LATENCY_PERCENTILES = new MeterFilter() {
        @Override
        public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
            return id.getName().equals(HANDLER_TIMER) || id.getName().equals(COMMAND_TIMER)
                    ? DistributionStatisticConfig.builder().percentiles(0.5, 0.99).build().merge(config)
                    : config;
        }
    };

    /** One snapshot: when it was written and its bytes. */
    @SuppressWarnings("ArrayRecordComponent") // written as they are; never compared
    private record Snapshot(long nanos, byte[] json) {
    }

    private final MeterRegistry registry;
    private final Supplier<Map<String, String>> pending;
    private final LongSupplier nanoTime;
    private final LongSupplier wallMillis;
    private volatile @Nullable Snapshot last;
    /** Looked up on the first snapshot, not at start: the management beans are costly to load in a cold JVM. */
    private volatile @Nullable List<GarbageCollectorMXBean> collectors;

    ConsoleStats(MeterRegistry registry, LongSupplier nanoTime, LongSupplier wallMillis) {
        this(registry, nanoTime, wallMillis, Map::of);
    }

    /** @param pending changed settings not yet in force, key to when they apply ({@link ConfigEdits#pending}) */
    ConsoleStats(MeterRegistry registry, LongSupplier nanoTime, LongSupplier wallMillis,
                 Supplier<Map<String, String>> pending) {
        this.pending = pending;
        this.registry = registry;
        this.nanoTime = nanoTime;
        this.wallMillis = wallMillis;
    }

    /** The current snapshot's JSON: the last one written, when it is fresh; otherwise a new one. */
    byte[] json() {
        long now = nanoTime.getAsLong();
        Snapshot s = last;
        if (s != null && now - s.nanos() < FRESH_NANOS) {
            return s.json();
        }
        synchronized (this) { // one writer at a time; the others take what it wrote
            s = last;
            if (s == null || now - s.nanos() >= FRESH_NANOS) {
                s = new Snapshot(now, write());
                last = s;
            }
            return s.json();
        }
    }

    private byte[] write() {
        Map<String, Double> commands = new TreeMap<>();
        for (Meter m : registry.find("pulsebus.commands.calls").meters()) {
            String outcome = m.getId().getTag("outcome");
            if (outcome != null) {
                commands.merge(outcome, total(m), Double::sum);
            }
        }
        double[] handler = slowest(HANDLER_TIMER);
        double[] command = slowest(COMMAND_TIMER);
        long gcCount = 0;
        long gcMillis = 0;
        for (GarbageCollectorMXBean gc : collectors()) {
            gcCount += Math.max(0, gc.getCollectionCount());
            gcMillis += Math.max(0, gc.getCollectionTime());
        }
        MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
        double events = sum("pulsebus.events.published");
        double waiters = gauge("pulsebus.longpoll.waiters");
        double connections = gauge("pulsebus.http.connections");
        double kvWrites = sum("pulsebus.kv.writes");
        long count = gcCount;
        long pause = gcMillis;
        Map<String, String> notYet = pending.get();
        return Responses.write(g -> {
            g.writeStartObject();
            g.writeNumberField("time_ms", wallMillis.getAsLong());
            g.writeNumberField("events", (long) events);
            g.writeObjectFieldStart("commands");
            for (Map.Entry<String, Double> e : commands.entrySet()) {
                g.writeNumberField(e.getKey(), e.getValue().longValue());
            }
            g.writeEndObject();
            g.writeNumberField("handler_p50_ms", handler[0]);
            g.writeNumberField("handler_p99_ms", handler[1]);
            g.writeNumberField("command_p50_ms", command[0]);
            g.writeNumberField("command_p99_ms", command[1]);
            g.writeNumberField("longpoll_waiters", (long) waiters);
            g.writeNumberField("connections", (long) connections);
            g.writeNumberField("heap_used_bytes", heap.getUsed());
            g.writeNumberField("heap_max_bytes", heap.getMax());
            g.writeNumberField("gc_count", count);
            g.writeNumberField("gc_pause_ms", pause);
            g.writeNumberField("kv_writes", (long) kvWrites);
            g.writeArrayFieldStart("pending"); // configuration edits not in force yet
            for (Map.Entry<String, String> e : notYet.entrySet()) {
                g.writeStartObject();
                g.writeStringField("key", e.getKey());
                g.writeStringField("applies", e.getValue());
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        });
    }

    /** The largest p50 and p99, in ms, of the timers named {@code name}; zeros when none has run lately. */
    private double[] slowest(String name) {
        double[] p = new double[2];
        for (Timer t : registry.find(name).timers()) {
            for (ValueAtPercentile v : t.takeSnapshot().percentileValues()) {
                double ms = v.value(TimeUnit.MILLISECONDS);
                if (v.percentile() == 0.5) {
                    p[0] = Math.max(p[0], ms);
                } else if (v.percentile() == 0.99) {
                    p[1] = Math.max(p[1], ms);
                }
            }
        }
        return p;
    }

    /**
     * The collectors whose time is pause time: all but the concurrent ones (G1's and ZGC's concurrent
     * cycles run beside the program and would count as pauses).
     */
    private List<GarbageCollectorMXBean> collectors() {
        List<GarbageCollectorMXBean> c = collectors;
        if (c == null) {
            c = ManagementFactory.getGarbageCollectorMXBeans().stream()
                    .filter(gc -> !gc.getName().contains("Concurrent") && !gc.getName().contains("Cycles")).toList();
            collectors = c;
        }
        return c;
    }

    private double sum(String name) {
        double total = 0;
        for (Meter m : registry.find(name).meters()) {
            total += total(m);
        }
        return total;
    }

    private double gauge(String name) {
        Gauge g = registry.find(name).gauge();
        return g == null ? 0 : g.value();
    }

    /** A counter's or function counter's count. */
    private static double total(Meter m) {
        double total = 0;
        for (Measurement x : m.measure()) {
            if (x.getStatistic() == Statistic.COUNT) {
                total += x.getValue();
            }
        }
        return total;
    }
}
