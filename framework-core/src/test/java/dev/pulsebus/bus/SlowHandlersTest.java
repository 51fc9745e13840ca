package dev.pulsebus.bus;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulsebus.internal.SlowCalls;
import dev.pulsebus.testing.LogCapture;
import dev.pulsebus.testing.Await;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Handlers slower than the threshold are logged once per interval with module, handler and event type, and counted. */
class SlowHandlersTest {

    record Ping(int n) {
    }

    @RegisterExtension
    final LogCapture log = new LogCapture(SlowCalls.class);
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private double slow(String module) {
        return registry.get("pulsebus.handler.slow").tag("module", module).counter().count();
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void aSlowSampledInlineHandlerIsCountedEveryTimeAndLoggedOnce() {
        try (EventBus bus = EventBus.builder().meterRegistry(registry).latencySampling(1)
                .slowHandler(Duration.ofMillis(30)).build()) {
            bus.on(Ping.class).name("weather/forecast").subscribe(p -> sleep(p.n()));
            bus.on(Ping.class).name("greeter").subscribe(p -> { });
            assertThat(slow("weather")).as("registered before the first slow run").isZero();
            bus.publish(new Ping(0));
            assertThat(slow("weather")).isZero();
            bus.publish(new Ping(60));
            bus.publish(new Ping(60));
            assertThat(slow("weather")).isEqualTo(2);
            assertThat(slow("greeter")).isZero();
            assertThat(log.lines()).hasSize(1);
            assertThat(log.lines().get(0)).contains("handler 'weather/forecast'")
                    .contains("module weather").contains(Ping.class.getName()).contains("bus.slow_handler_ms = 30");
        }
    }

    @Test
    void aSlowBlockingHandlerIsCountedEvenWithoutSampling() throws Exception {
        try (EventBus bus = EventBus.builder().meterRegistry(registry).latencySampling(1 << 30)
                .slowHandler(Duration.ofMillis(30)).build()) {
            bus.on(Ping.class).name("archive/store").blocking().subscribe(p -> sleep(p.n()));
            bus.publish(new Ping(60));
            assertThat(Await.until(Duration.ofSeconds(10), () -> slow("archive") == 1)).isTrue();
            assertThat(log.lines().get(0)).contains("blocking handler 'archive/store'");
        }
    }

    @Test
    void anUnsampledInlineRunIsNotJudgedAndZeroTurnsTheWarningOff() {
        try (EventBus bus = EventBus.builder().meterRegistry(registry).latencySampling(1 << 30)
                .slowHandler(Duration.ofMillis(30)).build()) {
            bus.on(Ping.class).name("weather").subscribe(p -> sleep(p.n()));
            bus.publish(new Ping(60)); // sampled with a chance of 1 in 2^30: reads no clock
            assertThat(slow("weather")).isZero();
        }
        try (EventBus bus = EventBus.builder().meterRegistry(new SimpleMeterRegistry()).latencySampling(1)
                .slowHandler(Duration.ZERO).build()) {
            bus.on(Ping.class).name("weather").subscribe(p -> sleep(p.n()));
            bus.publish(new Ping(60));
        }
        assertThat(log.lines()).isEmpty();
    }

    @Test
    void aHandlerNoModuleOwnsCountsAsNone() {
        try (EventBus bus = EventBus.builder().meterRegistry(registry).latencySampling(1)
                .slowHandler(Duration.ofMillis(30)).build()) {
            bus.subscribe(Ping.class, p -> sleep(p.n()));
            bus.publish(new Ping(60));
            assertThat(slow(SlowCalls.NO_MODULE)).isEqualTo(1);
        }
    }
}
