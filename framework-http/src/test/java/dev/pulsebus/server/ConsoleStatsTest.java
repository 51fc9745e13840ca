package dev.pulsebus.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pulsebus.internal.Json;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The stats snapshot: what it reads from the meters, and that it is written at most once per freshness interval. */
class ConsoleStatsTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final AtomicLong events = new AtomicLong();

    {
        registry.config().meterFilter(ConsoleStats.LATENCY_PERCENTILES);
        FunctionCounter.builder("pulsebus.events.published", events, AtomicLong::get).tag("type", "a")
                .register(registry);
        FunctionCounter.builder("pulsebus.commands.calls", new AtomicLong(3), AtomicLong::get)
                .tag("command", "roll").tag("outcome", "ok").register(registry);
        FunctionCounter.builder("pulsebus.commands.calls", new AtomicLong(2), AtomicLong::get)
                .tag("command", "echo").tag("outcome", "ok").register(registry);
        FunctionCounter.builder("pulsebus.commands.calls", new AtomicLong(1), AtomicLong::get)
                .tag("command", "echo").tag("outcome", "cooldown").register(registry);
    }

    private final ConsoleStats stats = new ConsoleStats(registry, nanos::get, () -> nanos.get() / 1_000_000);

    @Test
    void sumsTheChartedMetersAcrossTheirLabels() throws Exception {
        events.set(41);
        Timer handler = Timer.builder(ConsoleStats.HANDLER_TIMER).tag("type", "a").register(registry);
        for (int i = 0; i < 100; i++) {
            handler.record(Duration.ofMillis(i < 98 ? 2 : 200));
        }
        JsonNode s = Json.MAPPER.readTree(stats.json());
        assertThat(s.get("events").asLong()).isEqualTo(41);
        assertThat(s.get("commands").get("ok").asLong()).isEqualTo(5);
        assertThat(s.get("commands").get("cooldown").asLong()).isEqualTo(1);
        assertThat(s.get("handler_p50_ms").asDouble()).isBetween(1.0, 3.0);
        assertThat(s.get("handler_p99_ms").asDouble()).isGreaterThan(100.0);
        assertThat(s.get("heap_used_bytes").asLong()).isPositive();
    }

    @Test
    void commandLatencyIsGivenWhereNoHandlerRan() throws Exception {
        Timer ok = Timer.builder(ConsoleStats.COMMAND_TIMER).tag("outcome", "ok").register(registry);
        for (int i = 0; i < 100; i++) {
            ok.record(Duration.ofMillis(i < 98 ? 4 : 300));
        }
        JsonNode s = Json.MAPPER.readTree(stats.json());
        assertThat(s.get("handler_p50_ms").asDouble()).isZero();
        assertThat(s.get("handler_p99_ms").asDouble()).isZero();
        assertThat(s.get("command_p50_ms").asDouble()).isBetween(3.0, 5.0);
        assertThat(s.get("command_p99_ms").asDouble()).isGreaterThan(200.0);
    }

    @Test
    void oneSnapshotIsServedUntilItIsStaleThenANewOneIsWritten() throws Exception {
        events.set(1);
        byte[] first = stats.json();
        events.set(2);
        nanos.addAndGet(ConsoleStats.FRESH_NANOS - 1);
        assertThat(stats.json()).isSameAs(first);
        nanos.addAndGet(1);
        byte[] next = stats.json();
        assertThat(next).isNotSameAs(first);
        assertThat(Json.MAPPER.readTree(next).get("events").asLong()).isEqualTo(2);
    }
}
