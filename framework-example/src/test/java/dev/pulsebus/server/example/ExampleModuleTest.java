package dev.pulsebus.server.example;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulsebus.bus.EventBus;
import dev.pulsebus.command.CommandRouter;
import dev.pulsebus.event.ChatRef;
import dev.pulsebus.module.ModuleHost;
import dev.pulsebus.pipeline.InMemoryAdapter;
import dev.pulsebus.pipeline.MessagePipeline;
import dev.pulsebus.testing.Await;
import dev.pulsebus.testing.FakeClock;
import dev.pulsebus.testing.MemoryKvStore;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The example module's daily message, on a fake clock (its dialog is tested through the chat API). */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ExampleModuleTest {

    private final FakeClock clock = new FakeClock(Instant.parse("2026-12-01T08:00:00Z"), ZoneOffset.UTC);
    private final EventBus bus = EventBus.create();
    private final CommandRouter router = CommandRouter.builder().build();
    private final InMemoryAdapter http = new InMemoryAdapter("http", "bot");
    private MessagePipeline pipeline;
    private ModuleHost host;

    @AfterEach
    void stop() throws Exception {
        host.close();
        pipeline.close();
        bus.close();
    }

    private void load(Map<String, String> settings) throws Exception {
        pipeline = MessagePipeline.builder(bus).commands(router).adapter(http).build().start();
        host = ModuleHost.builder(bus, router).pipeline(pipeline).kv(new MemoryKvStore()).clock(clock)
                .clockRecheck(Duration.ofMillis(5)).settings(name -> settings).build();
        host.load(new ExampleModule());
    }

    @Test
    void theDailyMessageIsPostedInItsRoomAtItsTime() throws Exception {
        load(Map.of("daily_room", "general", "daily_cron", "30 9 * * *", "daily_zone", "Europe/Berlin"));

        clock.advance(Duration.ofMinutes(29)); // 08:29Z = 09:29 in Berlin
        assertThat(Await.until(Duration.ofMillis(100), () -> !http.sent().isEmpty())).isFalse();
        clock.advance(Duration.ofMinutes(1));

        assertThat(Await.until(Duration.ofSeconds(10), () -> http.sent().size() == 1)).isTrue();
        assertThat(http.sent().get(0).chat()).isEqualTo(ChatRef.group("http", "general"));
        assertThat(http.sent().get(0).message().plainText()).startsWith("Good morning!");
    }

    @Test
    void anEmptyRoomTurnsTheDailyMessageOff() throws Exception {
        load(Map.of("daily_room", ""));

        clock.advance(Duration.ofDays(1));

        assertThat(Await.until(Duration.ofMillis(100), () -> !http.sent().isEmpty())).isFalse();
    }
}
