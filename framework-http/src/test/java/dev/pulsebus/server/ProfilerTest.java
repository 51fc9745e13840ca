package dev.pulsebus.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pulsebus.internal.Json;
import dev.pulsebus.testing.Await;
import dev.pulsebus.testing.ModuleJars;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The profiler of the running server: a CPU profile taken while a module's expensive command is called names
 * the command's class under its module's mark, in the collapsed stacks and the flame graph; an allocation and
 * a wall profile are drawn too; one at a time; bad requests get 400; the files answer only to their key.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ProfilerTest {

    @TempDir
    Path dir;

    @Test
    void aCpuProfileNamesTheExpensiveCommandsClassUnderItsModule() throws Exception {
        try (TestServer t = new TestServer(dir, "")) {
            t.server.modules().load(new ModuleCostTest.Costly());
            try (Caller caller = new Caller(t, "profile", "/crunch")) {
                JsonNode cpu = profile(t, "{\"seconds\": 5, \"mode\": \"cpu\"}", true);
                assertThat(cpu.get("events").asLong()).isPositive();
                assertThat(cpu.get("module_stacks").asLong()).isPositive();
                String stacks = t.get(cpu.get("stacks").asText()).body();
                assertThat(stacks.lines().filter(l -> l.contains("[module costly];")
                        && l.indexOf("ModuleCostTest$Costly") > l.indexOf("[module costly]")))
                        .as("a stack with the command's class under its module's mark: %s", stacks.lines().limit(5).toList())
                        .isNotEmpty();
                HttpResponse<String> graph = t.get(cpu.get("flame_graph").asText());
                assertThat(graph.statusCode()).isEqualTo(200);
                assertThat(graph.headers().firstValue("content-type")).hasValue("text/html; charset=utf-8");
                assertThat(graph.headers().firstValue("content-security-policy").orElse(""))
                        .contains("sandbox allow-scripts").contains("default-src 'none'");
                assertThat(graph.body()).contains("<canvas").contains("[module costly]")
                        .contains("ModuleCostTest$Costly")
                        .as("self-contained: nothing loaded from the network (a credit link is not loaded)")
                        .doesNotContainPattern("src\\s*=\\s*['\"]?https?:").doesNotContainPattern("url\\(\\s*['\"]?https?:");
                HttpResponse<byte[]> jfr = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        t.uri(cpu.get("recording").asText())).build(), HttpResponse.BodyHandlers.ofByteArray());
                assertThat(jfr.statusCode()).isEqualTo(200);
                assertThat(Arrays.copyOf(jfr.body(), 4)).as("a JFR file").isEqualTo(new byte[] {'F', 'L', 'R', 0});
                assertThat(jfr.headers().firstValue("content-disposition").orElse("")).contains("attachment");

                String wrongKey = cpu.get("flame_graph").asText().replaceAll("key=.*", "key=00");
                assertThat(t.get(wrongKey).statusCode()).as("another key opens nothing").isEqualTo(404);

                JsonNode alloc = profile(t, "{\"seconds\": 2, \"mode\": \"alloc\"}", true);
                assertThat(t.get(alloc.get("stacks").asText()).body()).contains("[module costly]");
                assertThat(t.get(alloc.get("flame_graph").asText()).body()).contains(" bytes'");
                JsonNode wall = profile(t, "{\"seconds\": 1, \"mode\": \"wall\"}", false);
                assertThat(wall.get("events").asLong()).isPositive();
                assertThat(t.get(wall.get("flame_graph").asText()).body()).contains(" µs'");
            }
        }
    }

    @Test
    void aJarModulesFramesAreMarkedByItsClassLoader() throws Exception {
        Path jar = ModuleJars.build(Files.createDirectories(dir.resolve("jars")), "spin", "spin", "SpinModule",
                "SpinModule.java", """
                package spin;

                public final class SpinModule implements dev.pulsebus.module.BotModule {
                    public String name() { return "spin"; }
                    public void onLoad(dev.pulsebus.module.ModuleContext ctx) {
                        ctx.commands().register(dev.pulsebus.command.Command.named("spin")
                                .handler(call -> call.reply("spun " + Work.spin())));
                    }
                }
                """, "Work.java", """
                package spin;

                final class Work {
                    static long spin() {
                        long x = 0;
                        for (int i = 0; i < 3_000_000; i++) {
                            x += i * 31L ^ (x >>> 7);
                        }
                        return x;
                    }
                }
                """);
        try (TestServer t = new TestServer(dir, "")) {
            t.server.modules().load(jar);
            try (Caller caller = new Caller(t, "spin", "/spin")) {
                JsonNode cpu = profile(t, "{\"seconds\": 2, \"mode\": \"cpu\"}", true);
                String stacks = t.get(cpu.get("stacks").asText()).body();
                assertThat(stacks.lines().filter(l -> l.contains("[module spin];") && l.contains("spin.Work.spin")))
                        .as("the module's helper class, not its module class, under its mark").isNotEmpty();
            }
        }
    }

    @Test
    void oneAtATimeAtMostAMinuteAndBadRequestsAreRefused() throws Exception {
        try (TestServer t = new TestServer(dir, "")) {
            assertThat(Json.MAPPER.readTree(t.get("/api/admin/profile").body()).get("state").asText())
                    .isEqualTo("none");
            for (String bad : new String[] {"{\"seconds\": 0}", "{\"seconds\": 61}", "{\"seconds\": 1.5}",
                    "{\"mode\": \"heap\"}", "{\"mode\": 3}", "[]", "not json"}) {
                HttpResponse<String> res = t.post("/api/admin/profile", bad);
                assertThat(res.statusCode()).as(bad + " -> " + res.body()).isEqualTo(400);
            }
            HttpResponse<String> first = t.post("/api/admin/profile", "{\"seconds\": 2}");
            assertThat(first.statusCode()).as(first.body()).isEqualTo(202);
            JsonNode started = Json.MAPPER.readTree(first.body());
            assertThat(started.get("mode").asText()).isEqualTo("cpu");
            assertThat(started.get("state").asText()).isEqualTo("recording");
            assertThat(started.has("flame_graph")).as("no files while recording").isFalse();
            HttpResponse<String> second = t.post("/api/admin/profile", "{\"seconds\": 1, \"mode\": \"alloc\"}");
            assertThat(second.statusCode()).isEqualTo(409);
            assertThat(second.body()).contains("one at a time");
            assertThat(t.get("/api/admin/profile/" + started.get("id").asText() + "/flame.html").statusCode())
                    .as("no key").isEqualTo(404);
            HttpResponse<String> delete = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    t.uri("/api/admin/profile")).DELETE().build(), HttpResponse.BodyHandlers.ofString());
            assertThat(delete.statusCode()).isEqualTo(405);
        }
    }

    /** Says {@code text} in {@code room} again and again, a few milliseconds apart, until closed. */
    private static final class Caller implements AutoCloseable {
        private final AtomicBoolean calling = new AtomicBoolean(true);
        private final Thread thread;

        Caller(TestServer t, String room, String text) {
            thread = Thread.ofVirtual().start(() -> {
                while (calling.get()) {
                    try {
                        t.say(room, "ann", text);
                        Thread.sleep(5);
                    } catch (Exception e) {
                        return;
                    }
                }
            });
        }

        @Override
        public void close() throws InterruptedException {
            calling.set(false);
            thread.join();
        }
    }

    /** Starts a profile and waits for it to be drawn; returns its final state. */
    private static JsonNode profile(TestServer t, String body, boolean expectModule) throws Exception {
        HttpResponse<String> started = t.post("/api/admin/profile", body);
        assertThat(started.statusCode()).as(started.body()).isEqualTo(202);
        JsonNode[] state = new JsonNode[1];
        assertThat(Await.until(Duration.ofSeconds(60), Duration.ofMillis(200), () -> {
            state[0] = Json.MAPPER.readTree(t.get("/api/admin/profile").body());
            return state[0].get("state").asText().equals("done") || state[0].get("state").asText().equals("failed");
        })).as("drawn: %s", state[0]).isTrue();
        assertThat(state[0].get("state").asText()).as("%s", state[0]).isEqualTo("done");
        if (expectModule) {
            assertThat(state[0].get("module_stacks").asLong()).as("%s", state[0]).isPositive();
        }
        return state[0];
    }
}
