package dev.pulsebus.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pulsebus.internal.Json;
import dev.pulsebus.pipeline.HandlerWatch;
import dev.pulsebus.testing.Await;
import dev.pulsebus.testing.HangingModule;
import dev.pulsebus.testing.LogCapture;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** An inline command that never returns, in one HTTP room: the rooms on its lane are answered, the stall shows. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StalledHandlerTest {

    @TempDir
    Path dir;

    @RegisterExtension
    final LogCapture watchLog = new LogCapture(HandlerWatch.class);

    private final HangingModule hanger = new HangingModule();

    private static boolean botSaid(TestServer t, String room, String text) throws Exception {
        for (JsonNode m : Json.MAPPER.readTree(t.get("/api/rooms/" + room + "/messages").body()).get("messages")) {
            if (m.get("user").asText().equals(HttpChat.BOT_USER) && m.get("text").asText().equals(text)) {
                return true;
            }
        }
        return false;
    }

    private static JsonNode health(TestServer t) throws Exception {
        return Json.MAPPER.readTree(t.get("/health").body());
    }

    @Test
    void theOtherRoomsOfTheLaneAreAnsweredTheStallIsReportedAndAnUnloadInterruptsIt() throws Exception {
        try (TestServer t = new TestServer(dir, "\n[bus]\nstall_ms = 300\n")) {
            t.server.modules().load(hanger);
            String stuck = "stuck";
            String other = null;
            for (int i = 0; other == null; i++) {
                if (Math.floorMod(("r" + i).hashCode(), HttpChat.LANES) == Math.floorMod(stuck.hashCode(), HttpChat.LANES)) {
                    other = "r" + i;
                }
            }
            String room = other;
            assertThat(health(t).get("status").asText()).isEqualTo("UP");
            assertThat(t.say(stuck, "ann", "/hang").statusCode()).isEqualTo(201);
            assertThat(hanger.hanging.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(t.say(room, "bob", "/echo still here").statusCode()).isEqualTo(201);

            assertThat(Await.until(Duration.ofSeconds(10), () -> botSaid(t, room, "still here")))
                    .as("a room on the stalled lane is answered").isTrue();
            assertThat(Await.until(Duration.ofSeconds(10), () -> "DEGRADED".equals(health(t).get("status").asText())))
                    .isTrue();
            assertThat(health(t).at("/components/handlers/status").asText()).isEqualTo("DOWN");
            assertThat(t.get("/metrics").body()).contains("pulsebus_handler_stalled 1.0",
                    "pulsebus_component_up{component=\"handlers\"} 0.0");
            assertThat(watchLog.lines()).as("the WARN names command and module").singleElement().asString()
                    .contains("Stalled: command 'hang' of module hanger", "on chat " + stuck + " (lane pulsebus-http-lane-");

            t.server.modules().unload("hanger");
            assertThat(hanger.interrupted.await(10, TimeUnit.SECONDS)).as("the unload interrupts /hang").isTrue();
            assertThat(Await.until(Duration.ofSeconds(10), () -> "UP".equals(health(t).get("status").asText())))
                    .isTrue();
            assertThat(t.say(stuck, "ann", "/echo back").statusCode()).isEqualTo(201);
            assertThat(Await.until(Duration.ofSeconds(10), () -> botSaid(t, stuck, "back"))).isTrue();
        }
    }
}
