package dev.pulsebus.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pulsebus.internal.Json;
import dev.pulsebus.testing.Await;
import dev.pulsebus.testing.ModuleJars;
import java.net.Inet4Address;
import java.net.InetAddress;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The console's page and files, and its admin API, over real sockets (the browser's part: ConsoleBrowserTest). */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConsoleApiTest {

    @TempDir
    Path dir;

    /** A server whose modules folder is {@code modules} (no setting names it: the config's is {@code modules}). */
    static TestServer serverWithModules(Path dir, String extraToml, Path modules) throws Exception {
        return new TestServer(dir, extraToml, "", c -> c.withModulesDir(modules));
    }

    private static JsonNode json(HttpResponse<String> res) throws Exception {
        return Json.MAPPER.readTree(res.body());
    }

    @Test
    void thePageAndItsFilesAreServedWithAStrictPolicyAndNothingFromElsewhere() throws Exception {
        try (TestServer t = new TestServer(dir, "")) {
            HttpResponse<String> page = t.get("/");
            assertThat(page.statusCode()).isEqualTo(200);
            assertThat(page.headers().firstValue("Content-Type")).hasValue("text/html; charset=utf-8");
            String csp = page.headers().firstValue("Content-Security-Policy").orElse("");
            assertThat(csp).contains("default-src 'none'", "script-src 'self'", "connect-src 'self'")
                    .doesNotContain("unsafe-inline", "unsafe-eval", "http:", "https:");
            assertThat(page.body()).contains("<script type=\"module\" src=\"/console/console.js\">");
            assertThat(Pattern.compile("<script(?![^>]*\\bsrc=)").matcher(page.body()).find())
                    .as("an inline script").isFalse();
            assertThat(Pattern.compile("\\son[a-z]+=").matcher(page.body()).find()).as("an inline handler").isFalse();
            for (String file : ConsoleAssets.FILES) {
                HttpResponse<String> res = t.get("/console/" + file);
                assertThat(res.statusCode()).as(file).isEqualTo(200);
                assertThat(res.headers().firstValue("Content-Security-Policy")).as(file).hasValue(ConsoleAssets.CSP);
                assertThat(res.headers().firstValue("X-Content-Type-Options")).as(file).hasValue("nosniff");
                // the SVG's namespace is a name, not a request
                assertThat(res.body().replace("http://www.w3.org/2000/svg", "")).as(file)
                        .doesNotContainPattern("(?i)https?://|//cdn|@import|fonts\\.");
            }
            assertThat(t.get("/console/console.js").headers().firstValue("Content-Type"))
                    .hasValue("text/javascript; charset=utf-8");
            assertThat(t.get("/console/nothing.js").statusCode()).isEqualTo(404);
            assertThat(t.post("/", "").statusCode()).isEqualTo(405);
        }
    }

    @Test
    void statsAreASnapshotOfTheChartedMetersAndNotStored() throws Exception {
        try (TestServer t = new TestServer(dir, "")) {
            HttpResponse<String> first = t.get("/api/admin/stats");
            assertThat(first.statusCode()).isEqualTo(200);
            assertThat(first.headers().firstValue("Cache-Control")).hasValue("no-store");
            JsonNode s = json(first);
            for (String field : new String[] {"time_ms", "events", "commands", "handler_p50_ms", "handler_p99_ms",
                    "longpoll_waiters", "connections", "heap_used_bytes", "heap_max_bytes", "gc_count", "gc_pause_ms",
                    "kv_writes"}) {
                assertThat(s.has(field)).as(field).isTrue();
            }
            assertThat(s.get("heap_used_bytes").asLong()).isPositive();
            assertThat(t.say("stats", "ann", "/roll 6").statusCode()).isEqualTo(201);
            assertThat(t.say("stats", "ann", "/remember k v").statusCode()).isEqualTo(201);
            assertThat(Await.until(Duration.ofSeconds(10), () -> {
                JsonNode now = json(t.get("/api/admin/stats"));
                return now.get("commands").path("ok").asLong() >= 2 && now.get("kv_writes").asLong() >= 1
                        && now.get("events").asLong() >= 1;
            })).as("the say, its command and its KV write are counted").isTrue();
            HttpResponse<String> rooms = t.get("/api/admin/rooms");
            assertThat(rooms.headers().firstValue("Cache-Control")).hasValue("no-store");
            assertThat(json(rooms).get("rooms").toString()).contains("\"stats\"");
            assertThat(t.post("/api/admin/stats", "").statusCode()).isEqualTo(405);
            assertThat(t.get("/api/admin/nothing").statusCode()).isEqualTo(404);
        }
    }

    @Test
    void withATokenEveryAdminCallNeedsItAndTheRefusalIsNotStored() throws Exception {
        try (TestServer t = new TestServer(dir, "token = \"s3cret\"\n")) {
            for (String path : new String[] {"/api/admin/stats", "/api/admin/modules", "/api/admin/errors",
                    "/api/admin/rooms", "/api/admin/modules/example/reload"}) {
                HttpResponse<String> res = path.endsWith("reload") ? t.post(path, "") : t.get(path);
                assertThat(res.statusCode()).as(path).isEqualTo(401);
                assertThat(res.headers().firstValue("WWW-Authenticate")).as(path).hasValue("Bearer");
                assertThat(res.headers().firstValue("Cache-Control")).as(path).hasValue("no-store");
            }
            assertThat(t.get("/api/admin/stats", "Authorization", "Bearer wrong").statusCode()).isEqualTo(401);
            assertThat(t.get("/api/admin/stats", "Authorization", "Bearer s3cret").statusCode()).isEqualTo(200);
            assertThat(t.get("/").statusCode()).as("the page itself is open: it asks for the token").isEqualTo(200);
        }
    }

    @Test
    void withoutATokenAdminCallsAreAcceptedFromLoopbackOnly() throws Exception {
        HttpHeaders none = new DefaultHttpHeaders();
        assertThat(RequestGuard.loopbackClient(new InetSocketAddress("127.0.0.1", 1), none)).isTrue();
        assertThat(RequestGuard.loopbackClient(new InetSocketAddress("::1", 1), none)).isTrue();
        assertThat(RequestGuard.loopbackClient(new InetSocketAddress("10.1.2.3", 1), none)).isFalse();
        assertThat(RequestGuard.loopbackClient(null, none)).isFalse();
        for (String proxy : new String[] {"Forwarded", "X-Forwarded-For", "X-Real-IP"}) {
            assertThat(RequestGuard.loopbackClient(new InetSocketAddress("127.0.0.1", 1),
                    new DefaultHttpHeaders().set(proxy, "for=203.0.113.9"))).as(proxy).isFalse();
        }
        InetAddress outside = Collections.list(NetworkInterface.getNetworkInterfaces()).stream()
                .flatMap(n -> Collections.list(n.getInetAddresses()).stream())
                .filter(a -> a instanceof Inet4Address && !a.isLoopbackAddress()).findFirst().orElse(null);
        Assumptions.assumeTrue(outside != null, "this machine has no address but loopback");
        try (TestServer t = new TestServer(dir, "host = \"0.0.0.0\"\n")) {
            HttpClient client = HttpClient.newBuilder().localAddress(outside).build();
            URI stats = URI.create("http://" + outside.getHostAddress() + ":" + t.server.port() + "/api/admin/stats");
            HttpResponse<String> res = client.send(HttpRequest.newBuilder(stats).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(res.statusCode()).isEqualTo(403);
            assertThat(res.body()).contains("loopback");
            assertThat(t.get("/api/admin/stats").statusCode()).isEqualTo(200);
        }
    }

    /** What a version of "hot" that fails to load runs in its {@code onLoad}. */
    static final String BROKEN = "if (ctx != null) throw new IllegalStateException(\"broken on purpose\");";

    /**
     * A jar of module "hot": {@code /hot} answers "hot VERSION", {@code GET /modules/hot/v} VERSION;
     * {@code onLoad} runs {@code extra} first.
     */
    static Path hot(Path jars, String version, String extra) throws java.io.IOException {
        return ModuleJars.build(jars, "hot-" + version, "hot", "HotModule", "HotModule.java", """
                package hot;

                public final class HotModule implements dev.pulsebus.module.BotModule {
                    public String name() { return "hot"; }
                    public String version() { return "%s"; }
                    public void onLoad(dev.pulsebus.module.ModuleContext ctx) {
                        %s
                        ctx.commands().register(dev.pulsebus.command.Command.named("hot")
                                .handler(call -> call.reply("hot %s")));
                        ctx.route("GET", "/v", req -> dev.pulsebus.module.HttpRoute.Reply.text(200, "%s"));
                    }
                }
                """.formatted(version, extra, version, version));
    }

    @Test
    void jarModulesLoadUnloadAndReloadThroughTheApiAndAFailedReloadKeepsTheOldVersion() throws Exception {
        Path modules = Files.createDirectories(dir.resolve("modules"));
        Path jars = Files.createDirectories(dir.resolve("jars"));
        Files.copy(hot(jars, "v1", ""), modules.resolve("hot-v1.jar"));
        try (TestServer t = serverWithModules(Files.createDirectories(dir.resolve("server")), "", modules)) {
            Files.copy(hot(jars, "v2", ""), modules.resolve("hot-v2.jar"));
            Files.copy(hot(jars, "broken", BROKEN),
                    modules.resolve("hot-broken.jar"));
            JsonNode list = json(t.get("/api/admin/modules"));
            JsonNode hot = module(list, "hot");
            assertThat(hot.get("version").asText()).isEqualTo("v1");
            assertThat(hot.get("source").asText()).isEqualTo("jar");
            assertThat(hot.get("jar").asText()).isEqualTo("hot-v1.jar");
            assertThat(hot.get("commands").toString()).isEqualTo("[\"hot\"]");
            assertThat(hot.get("routes").toString()).isEqualTo("[\"GET /modules/hot/v\"]");
            assertThat(module(list, "example").get("source").asText()).isEqualTo("classpath");
            assertThat(list.get("jars").toString()).contains("hot-v1.jar", "hot-v2.jar", "hot-broken.jar");

            HttpResponse<String> reloaded = t.post("/api/admin/modules/hot/reload", "{\"jar\": \"hot-v2.jar\"}");
            assertThat(reloaded.statusCode()).as(reloaded.body()).isEqualTo(200);
            assertThat(module(json(reloaded), "hot").get("version").asText()).isEqualTo("v2");
            assertThat(json(reloaded).get("jars").toString()).as("the replaced jar is moved aside")
                    .doesNotContain("hot-v1.jar");
            assertThat(modules.resolve(".replaced").resolve("hot-v1.jar")).exists();
            assertThat(t.get("/modules/hot/v").body()).isEqualTo("v2");

            HttpResponse<String> failed = t.post("/api/admin/modules/hot/reload", "{\"jar\": \"hot-broken.jar\"}");
            assertThat(failed.statusCode()).isEqualTo(409);
            assertThat(json(failed).get("error").asText()).contains("broken on purpose");
            assertThat(t.get("/modules/hot/v").body()).as("the old version runs again").isEqualTo("v2");
            assertThat(Await.until(Duration.ofSeconds(5), () ->
                    t.get("/api/admin/errors").body().contains("broken on purpose"))).isTrue();

            assertThat(t.post("/api/admin/modules/hot/reload", "").statusCode()).as("from its own jar").isEqualTo(200);
            assertThat(t.post("/api/admin/modules/example/reload", "").statusCode()).isEqualTo(409);
            assertThat(t.post("/api/admin/modules/nobody/unload", "").statusCode()).isEqualTo(404);
            assertThat(t.post("/api/admin/modules/hot/reload", "{\"jar\": \"../hot-v2.jar\"}").statusCode())
                    .isEqualTo(400);
            assertThat(t.post("/api/admin/modules/hot/reload", "{\"jar\": \"none.jar\"}").statusCode()).isEqualTo(404);
            assertThat(t.get("/api/admin/modules/hot/reload").statusCode()).isEqualTo(405);

            HttpResponse<String> unloaded = t.post("/api/admin/modules/hot/unload", "");
            assertThat(unloaded.statusCode()).isEqualTo(200);
            assertThat(unloaded.body()).doesNotContain("\"name\":\"hot\"");
            assertThat(t.get("/modules/hot/v").statusCode()).isEqualTo(404);
            HttpResponse<String> loaded = t.post("/api/admin/modules/load", "{\"jar\": \"hot-v2.jar\"}");
            assertThat(loaded.statusCode()).as(loaded.body()).isEqualTo(200);
            assertThat(t.get("/modules/hot/v").body()).isEqualTo("v2");
            assertThat(t.post("/api/admin/modules/load", "{}").statusCode()).isEqualTo(400);
        }
    }

    /** What a version of "hot" whose load never ends on its own runs in its {@code onLoad}. */
    static final String STUCK = "try { new java.util.concurrent.CountDownLatch(1).await(); }"
            + " catch (InterruptedException e) { }"; // then registers, too late

    @Test
    void aModuleWhoseLoadNeverEndsIsSkippedAtStartAndRefusedLaterAndTheHostStaysUsable() throws Exception {
        Path modules = Files.createDirectories(dir.resolve("modules"));
        Path jars = Files.createDirectories(dir.resolve("jars"));
        Files.copy(hot(jars, "stuck", STUCK), modules.resolve("hot-stuck.jar"));
        String bounded = "\n[modules]\nload_timeout_ms = 400\n";
        try (TestServer t = serverWithModules(Files.createDirectories(dir.resolve("server")), bounded, modules)) {
            JsonNode list = json(t.get("/api/admin/modules"));
            assertThat(list.get("modules").toString()).as("the server runs without it").doesNotContain("\"hot\"")
                    .contains("\"example\"");
            assertThat(t.get("/modules/hot/v").statusCode()).as("its route was rolled back").isEqualTo(404);
            HttpResponse<String> errors = t.get("/api/admin/errors");
            assertThat(errors.body()).as("the ERROR names the jar")
                    .contains("Modules of " + modules.resolve("hot-stuck.jar") + " are not loaded")
                    .contains("400 ms (modules.load_timeout_ms)");

            HttpResponse<String> refused = t.post("/api/admin/modules/load", "{\"jar\": \"hot-stuck.jar\"}");
            assertThat(refused.statusCode()).isEqualTo(409);
            assertThat(json(refused).get("error").asText()).contains("module 'hot' failed to load",
                    "400 ms (modules.load_timeout_ms)");
            assertThat(t.get("/modules/hot/v").statusCode()).isEqualTo(404);

            Files.copy(hot(jars, "v1", ""), modules.resolve("hot-v1.jar"));
            HttpResponse<String> loaded = t.post("/api/admin/modules/load", "{\"jar\": \"hot-v1.jar\"}");
            assertThat(loaded.statusCode()).as(loaded.body()).isEqualTo(200);
            assertThat(t.get("/modules/hot/v").body()).isEqualTo("v1");
            assertThat(t.post("/api/admin/modules/hot/unload", "").statusCode()).isEqualTo(200);
        }
    }

    private static JsonNode module(JsonNode list, String name) {
        for (JsonNode m : list.get("modules")) {
            if (m.get("name").asText().equals(name)) {
                return m;
            }
        }
        throw new AssertionError("no module " + name + " in " + list);
    }
}
