package dev.pulsebus.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulsebus.module.BotModule;
import dev.pulsebus.module.HttpRoute;
import dev.pulsebus.module.ModuleContext;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A module loaded into a running server serves its HTTP routes, migrates its tables, and takes both away on unload. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ModuleRoutesTest {

    @TempDir
    Path dir;

    static final class Counter implements BotModule {
        @Override
        public String name() {
            return "counter";
        }

        @Override
        public void onLoad(ModuleContext ctx) {
            ctx.migrate("db/routes-test");
            ctx.route("GET", "/hello", req -> HttpRoute.Reply.text(200, "hello " + req.query().getOrDefault("name", "you")));
            ctx.route("PUT", "/hello", req -> HttpRoute.Reply.text(200, "put"));
            ctx.route("POST", "/echo", req -> HttpRoute.Reply.json(200, req.body()));
            ctx.route("GET", "/fail", req -> {
                throw new IllegalStateException("broken on purpose");
            });
        }
    }

    /** Says goodbye in a room when it unloads. */
    static final class Farewell implements BotModule {
        @Override
        public String name() {
            return "farewell";
        }

        @Override
        public void onLoad(ModuleContext ctx) {
        }

        @Override
        public void onUnload(ModuleContext ctx) throws Exception {
            ctx.pipeline().send(new dev.pulsebus.pipeline.OutboundMessage(new dev.pulsebus.event.Self("http", "bot"),
                    HttpChat.room("lobby"), dev.pulsebus.event.Message.text("goodbye"), "")).toCompletableFuture().join();
        }
    }

    @Test
    void aModuleCanStillReplyWhileTheServerShutsDown() throws Exception {
        try (TestServer t = new TestServer(dir, "")) {
            t.server.modules().load(new Farewell());
        }
        try (TestServer again = new TestServer(dir, "")) {
            assertThat(again.get("/api/rooms/lobby/messages").body()).contains("goodbye");
        }
    }

    @Test
    void routesAreServedWhileTheModuleIsLoaded() throws Exception {
        try (TestServer t = new TestServer(dir, "")) {
            t.server.modules().load(new Counter());
            HttpResponse<String> hello = t.get("/modules/counter/hello?name=ann");
            assertThat(hello.statusCode()).isEqualTo(200);
            assertThat(hello.body()).isEqualTo("hello ann");
            assertThat(hello.headers().firstValue("content-type")).hasValue("text/plain; charset=utf-8");
            assertThat(t.post("/modules/counter/echo", "{\"a\":1}").body()).isEqualTo("{\"a\":1}");
            HttpResponse<String> post = t.post("/modules/counter/hello", "");
            assertThat(post.statusCode()).isEqualTo(405);
            assertThat(post.headers().firstValue("allow")).hasValue("GET, PUT");
            assertThat(post.body()).contains("\"status\":405").contains("POST").contains("GET, PUT");
            HttpResponse<String> fail = t.get("/modules/counter/fail");
            assertThat(fail.statusCode()).isEqualTo(500);
            assertThat(fail.body()).contains("broken on purpose");
            assertThat(t.get("/modules/counter/nope").statusCode()).isEqualTo(404);
            assertThat(t.get("/metrics").body()).as("timed by the route as registered")
                    .contains("http_server_requests_seconds_count{method=\"GET\",route=\"/modules/counter/hello\",status=\"200\"} 1")
                    .contains("http_server_requests_seconds_count{method=\"POST\",route=\"/modules/counter/hello\",status=\"405\"} 1")
                    .contains("http_server_requests_seconds_count{method=\"GET\",route=\"/modules/counter/fail\",status=\"500\"} 1")
                    .doesNotContain("route=\"/modules/counter/nope\"");

            t.server.modules().unload("counter");
            assertThat(t.get("/modules/counter/hello").statusCode()).isEqualTo(404);

            // Its migration ran once: loading again applies nothing new and works.
            t.server.modules().load(new Counter());
            assertThat(t.get("/modules/counter/hello").statusCode()).isEqualTo(200);
        }
    }
}
