package dev.pulsebus.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pulsebus.command.Command;
import dev.pulsebus.internal.Json;
import dev.pulsebus.module.BotModule;
import dev.pulsebus.module.ModuleContext;
import dev.pulsebus.testing.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Traces of slow commands in a running server ({@code GET /api/admin/slow}): a slow command that writes to
 * its KV namespace shows the write and its time, its reply, and the time its message waited before it, and
 * its duration's exemplar names its trace; a
 * dialog's wait for the user's answer is a span of its own, left out of the command's own time; a fast
 * command keeps no trace.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SlowTracesTest {

    @TempDir
    Path dir;

    static final class Slowpoke implements BotModule {
        @Override
        public String name() {
            return "slowpoke";
        }

        @Override
        public void onLoad(ModuleContext ctx) {
            ctx.commands().register(Command.named("slow").handler(call -> {
                ctx.kv().setAsync("last", "slow", null).toCompletableFuture().join(); // until committed
                Thread.sleep(250);
                call.reply("done");
            }));
            ctx.commands().register(Command.named("quiz").blocking().handler(call -> {
                String name = call.askText("Your name?");
                Thread.sleep(250);
                call.reply("Hello " + name);
            }));
            ctx.commands().register(Command.named("quick").handler(call -> call.reply("quick")));
        }
    }

    @Test
    void aSlowCommandsTraceShowsItsKvWriteItsReplyAndItsWaitInTheLane() throws Exception {
        try (TestServer t = new TestServer(dir, "\n[bus]\nslow_handler_ms = 200\n")) {
            t.server.modules().load(new Slowpoke());
            assertThat(t.say("slow-room", "ann", "/quick").statusCode()).isEqualTo(201);
            assertThat(t.say("slow-room", "ann", "/slow").statusCode()).isEqualTo(201);
            JsonNode trace = awaitTrace(t, "slow");
            assertThat(trace.get("module").asText()).isEqualTo("slowpoke");
            assertThat(trace.get("user").asText()).isEqualTo("ann");
            assertThat(trace.get("outcome").asText()).isEqualTo("ok");
            assertThat(trace.get("total_ms").asDouble()).isGreaterThanOrEqualTo(250);
            assertThat(trace.get("own_ms").asDouble()).as("the sleep is its own time: %s", trace)
                    .isGreaterThanOrEqualTo(245).isLessThanOrEqualTo(trace.get("total_ms").asDouble());
            JsonNode write = span(trace, "kv");
            assertThat(write.get("name").asText()).isEqualTo("set slowpoke");
            assertThat(write.get("duration_ms").asDouble()).as("the write, until committed").isPositive();
            assertThat(write.get("start_ms").asDouble()).isGreaterThanOrEqualTo(0);
            JsonNode reply = span(trace, "reply");
            assertThat(reply.get("name").asText()).isEqualTo("to http slow-room");
            assertThat(reply.get("start_ms").asDouble()).as("after the sleep").isGreaterThanOrEqualTo(250);
            assertThat(span(trace, "queued").get("start_ms").asDouble()).as("before the call").isNegative();
            assertThat(trace.get("spans").toString()).as("the chat API records a say before it queues it: no wait")
                    .doesNotContain("\"transcript\"");
            assertThat(commands(t)).as("a fast command keeps no trace").doesNotContain("quick");

            // its time in the command-duration histogram carries its trace id as an exemplar (OpenMetrics)
            String id = trace.get("trace_id").asText();
            String open = t.get("/metrics", "Accept", "application/openmetrics-text; version=1.0.0; charset=utf-8")
                    .body();
            assertThat(open.lines().filter(l -> l.startsWith("pulsebus_command_duration_seconds_bucket{")
                    && l.contains("outcome=\"ok\"") && l.contains("trace_id=\"" + id + "\"")))
                    .as("an exemplar naming trace %s", id).isNotEmpty();
            assertThat(t.get("/metrics").body()).as("none in Prometheus's text format").doesNotContain("trace_id");
            JsonNode byId = Json.MAPPER.readTree(t.get("/api/admin/slow?trace_id=" + id).body()).get("traces");
            assertThat(byId).singleElement().satisfies(one -> assertThat(one.get("trace_id").asText()).isEqualTo(id));
            assertThat(Json.MAPPER.readTree(t.get("/api/admin/slow?trace_id=0").body()).get("traces")).isEmpty();
        }
    }

    @Test
    void aDialogsWaitForTheAnswerIsASpanLeftOutOfTheCommandsOwnTime() throws Exception {
        try (TestServer t = new TestServer(dir, "\n[bus]\nslow_handler_ms = 200\n")) {
            t.server.modules().load(new Slowpoke());
            assertThat(t.say("quiz-room", "bob", "/quiz").statusCode()).isEqualTo(201);
            Thread.sleep(500); // the user takes a while to answer
            assertThat(t.say("quiz-room", "bob", "Bob").statusCode()).isEqualTo(201);
            JsonNode trace = awaitTrace(t, "quiz");
            JsonNode ask = span(trace, "ask");
            assertThat(ask.get("duration_ms").asDouble()).isGreaterThanOrEqualTo(400);
            double own = trace.get("own_ms").asDouble();
            assertThat(own).as("the sleep after the answer, not the wait: %s", trace).isGreaterThanOrEqualTo(245)
                    .isLessThan(trace.get("total_ms").asDouble() - 400);
        }
    }

    private static List<String> commands(TestServer t) throws Exception {
        List<String> names = new ArrayList<>();
        for (JsonNode trace : Json.MAPPER.readTree(t.get("/api/admin/slow").body()).get("traces")) {
            names.add(trace.get("command").asText());
        }
        return names;
    }

    private static JsonNode awaitTrace(TestServer t, String command) throws Exception {
        JsonNode[] found = new JsonNode[1];
        JsonNode[] last = new JsonNode[1];
        assertThat(Await.until(Duration.ofSeconds(20), () -> {
            last[0] = Json.MAPPER.readTree(t.get("/api/admin/slow").body());
            for (JsonNode trace : last[0].get("traces")) {
                if (trace.get("command").asText().equals(command)) {
                    found[0] = trace;
                    return true;
                }
            }
            return false;
        })).as("a trace of /%s: %s", command, last[0]).isTrue();
        assertThat(last[0].get("threshold_ms").asLong()).isEqualTo(200);
        return found[0];
    }

    private static JsonNode span(JsonNode trace, String kind) {
        for (JsonNode s : trace.get("spans")) {
            if (s.get("kind").asText().equals(kind)) {
                return s;
            }
        }
        throw new AssertionError("no " + kind + " span in " + trace);
    }
}
