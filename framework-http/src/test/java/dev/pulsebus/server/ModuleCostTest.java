package dev.pulsebus.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pulsebus.command.Command;
import dev.pulsebus.internal.Json;
import dev.pulsebus.module.BotModule;
import dev.pulsebus.module.ModuleContext;
import dev.pulsebus.testing.Await;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What each module costs, in a running server: a module with a deliberately expensive command (a busy loop and a
 * large allocation) and one with a cheap command, both called through the chat API on the lanes' virtual
 * threads, at the default sampling: the expensive one leads {@code GET /api/admin/modules/cost} with the larger
 * CPU and bytes per call, and {@code /metrics} carries the per-module counters and the per-command histogram.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ModuleCostTest {

    @TempDir
    Path dir;

    static final AtomicLong SINK = new AtomicLong();

    static final class Costly implements BotModule {
        @Override
        public String name() {
            return "costly";
        }

        @Override
        public void onLoad(ModuleContext ctx) {
            ctx.commands().register(Command.named("crunch").handler(call -> {
                long x = 0;
                for (int i = 0; i < 30_000_000; i++) { // some 30 ms: far above any first call's class loading
                    x += i * 31L ^ (x >>> 7);
                }
                byte[] big = new byte[2 << 20];
                big[(int) (x & 1)] = 1;
                SINK.addAndGet(x + big[0]);
                call.reply("crunched");
            }));
        }
    }

    static final class Cheap implements BotModule {
        @Override
        public String name() {
            return "cheap";
        }

        @Override
        public void onLoad(ModuleContext ctx) {
            ctx.commands().register(Command.named("ping").handler(call -> call.reply("pong")));
        }
    }

    @Test
    void anExpensiveCommandLeadsTheCostTableWithTheLargerCpuAndBytesPerCall() throws Exception {
        try (TestServer t = new TestServer(dir, "")) {
            t.server.modules().load(new Costly());
            t.server.modules().load(new Cheap());
            for (int i = 0; i < 20; i++) {
                say(t, "/crunch");
                say(t, "/ping");
            }
            JsonNode[] cost = new JsonNode[1];
            assertThat(Await.until(Duration.ofSeconds(20), () -> {
                cost[0] = Json.MAPPER.readTree(t.get("/api/admin/modules/cost").body());
                JsonNode cheap = module(cost[0], "cheap");
                JsonNode costly = module(cost[0], "costly");
                return cheap != null && costly != null && cheap.get("calls").asLong() == 20
                        && costly.get("calls").asLong() == 20;
            })).as("both commands' 20 calls counted: %s", cost[0]).isTrue();
            JsonNode report = cost[0];
            assertThat(report.get("sample_every").asInt()).isEqualTo(16);
            assertThat(report.get("modules").get(0).get("module").asText()).as("%s", report).isEqualTo("costly");
            JsonNode costly = module(report, "costly");
            JsonNode cheap = module(report, "cheap");
            assertThat(costly.get("measured").asLong()).as("the first call, then one in 16").isEqualTo(2);
            assertThat(costly.get("cpu_per_call_us").asDouble()).as("%s", report)
                    .isGreaterThan(500).isGreaterThan(10 * cheap.get("cpu_per_call_us").asDouble());
            assertThat(costly.get("bytes_per_call").asLong()).isGreaterThan(1 << 20)
                    .isGreaterThan(10 * cheap.get("bytes_per_call").asLong());
            assertThat(costly.get("cpu_share").asDouble()).isBetween(0.0, 1.0);
            assertThat(costly.get("calls_per_second").asDouble()).isPositive();
            JsonNode site = costly.get("sites").get(0);
            assertThat(site.get("kind").asText()).isEqualTo("command");
            assertThat(site.get("name").asText()).isEqualTo("crunch");

            String metrics = t.get("/metrics").body();
            assertThat(metrics).contains("pulsebus_module_cpu_seconds_total{module=\"costly\"}")
                    .contains("pulsebus_module_allocated_bytes_total{module=\"costly\"}")
                    .contains("pulsebus_module_invocations_total{module=\"cheap\"}")
                    .contains("pulsebus_command_cpu_seconds_count{command=\"crunch\",module=\"costly\"} 2")
                    .contains("pulsebus_command_cpu_seconds_bucket{command=\"ping\",module=\"cheap\",le=");

            HttpResponse<String> post = t.post("/api/admin/modules/cost", "{}");
            assertThat(post.statusCode()).isEqualTo(405);
        }
    }

    private static void say(TestServer t, String text) throws Exception {
        HttpResponse<String> res = t.post("/api/rooms/cost/messages", "{\"user\": \"ann\", \"text\": \"" + text + "\"}");
        assertThat(res.statusCode()).as(res.body()).isEqualTo(201);
    }

    private static JsonNode module(JsonNode report, String name) {
        for (JsonNode m : report.get("modules")) {
            if (m.get("module").asText().equals(name)) {
                return m;
            }
        }
        return null;
    }
}
