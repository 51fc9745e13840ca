package dev.pulsebus.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pulsebus.internal.Json;
import dev.pulsebus.testing.Await;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The chat API and /health over a real socket, with the example module answering commands. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ChatApiTest {

    @TempDir
    Path dir;
    TestServer t;

    @BeforeEach
    void start() throws Exception {
        t = new TestServer(dir, "");
    }

    @AfterEach
    void stop() {
        t.close();
    }

    private static JsonNode json(HttpResponse<String> r) throws Exception {
        return Json.MAPPER.readTree(r.body());
    }

    @Test
    void healthIsUpWithItsComponents() throws Exception {
        HttpResponse<String> r = t.get("/health");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("content-type")).hasValue("application/json; charset=utf-8");
        JsonNode h = json(r);
        assertThat(h.get("status").asText()).isEqualTo("UP");
        assertThat(h.get("version").asText()).isNotBlank();
        assertThat(h.get("instance").asText()).isNotBlank();
        assertThat(h.get("uptime_s").isIntegralNumber()).isTrue();
        assertThat(h.at("/events/received").asLong()).isZero();
        assertThat(h.at("/events/handled").isIntegralNumber()).isTrue();
        assertThat(h.at("/components/storage/status").asText()).isEqualTo("UP");
        assertThat(h.at("/components/transcripts/status").asText()).isEqualTo("UP");
        assertThat(h.at("/components/http/status").asText()).isEqualTo("UP");
        assertThat(h.has("error")).isFalse();
    }

    @Test
    void aSayIsStoredAndAcknowledgedWith201AndTheBotAnswersInTheRoom() throws Exception {
        HttpResponse<String> r = t.say("lobby", "ann", "/echo hello there");
        assertThat(r.statusCode()).isEqualTo(201);
        JsonNode said = json(r);
        assertThat(said.get("room").asText()).isEqualTo("lobby");
        assertThat(said.get("user").asText()).isEqualTo("ann");
        assertThat(said.get("text").asText()).isEqualTo("/echo hello there");
        assertThat(said.get("id").asText()).isNotBlank();
        long seq = said.get("seq").asLong();
        assertThat(seq).isPositive();
        assertThat(java.time.Instant.parse(said.get("time").asText())).isNotNull();

        JsonNode poll = json(t.get("/api/rooms/lobby/poll?after=" + seq + "&timeout_ms=10000"));
        JsonNode reply = poll.get("messages").get(0);
        assertThat(reply.get("user").asText()).isEqualTo("bot");
        assertThat(reply.get("text").asText()).isEqualTo("hello there");
        assertThat(reply.get("seq").asLong()).isGreaterThan(seq);

        JsonNode health = json(t.get("/health"));
        assertThat(health.at("/events/received").asLong()).isEqualTo(1);
        assertThat(health.at("/events/handled").asLong()).isEqualTo(1);
    }

    @Test
    void aSaySentAgainWithItsIdIsStoredAndAnsweredOnce() throws Exception {
        String body = "{\"user\": \"ann\", \"text\": \"/echo once\", \"id\": \"3f2a-9c.1_x:y\"}";
        List<HttpResponse<String>> tries = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<Thread> clients = new java.util.ArrayList<>();
        for (int i = 0; i < 4; i++) { // at once: the later tries wait for the first
            clients.add(Thread.ofVirtual().start(() -> {
                try {
                    tries.add(t.post("/api/rooms/again/messages", body));
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }));
        }
        for (Thread c : clients) {
            c.join();
        }
        tries.add(t.post("/api/rooms/again/messages", body)); // and after it was stored
        assertThat(tries).extracting(HttpResponse::statusCode).containsOnly(201);
        java.util.Set<Long> seqs = new java.util.HashSet<>();
        for (HttpResponse<String> r : tries) {
            seqs.add(json(r).get("seq").asLong());
        }
        assertThat(seqs).as("one message, answered as such to every try").hasSize(1);
        assertThat(json(tries.get(0)).get("id").asText()).isEqualTo("c:3f2a-9c.1_x:y");
        assertThat(waitForReplies("again", 1)).containsExactly("once");
        t.say("again", "ann", "/echo after"); // the room goes on: the second try made no second reply before it
        assertThat(waitForReplies("again", 2)).containsExactly("once", "after");

        HttpResponse<String> other = t.post("/api/rooms/again/messages",
                "{\"user\": \"bob\", \"text\": \"/echo once\", \"id\": \"3f2a-9c.1_x:y\"}");
        assertThat(other.statusCode()).isEqualTo(409);
        assertThat(json(other).get("error").asText()).contains("taken in room again by another message");
        assertThat(t.post("/api/rooms/again/messages", "{\"user\": \"ann\", \"text\": \"hi\", \"id\": \"a/b\"}")
                .statusCode()).isEqualTo(400);
        assertThat(t.post("/api/rooms/again/messages", "{\"user\": \"ann\", \"text\": \"hi\", \"id\": 7}")
                .statusCode()).isEqualTo(400);
        assertThat(t.post("/api/rooms/again/messages", "{\"user\": \"ann\", \"text\": \"hi\", \"id\": \""
                + "x".repeat(65) + "\"}").statusCode()).isEqualTo(400);
    }

    @Test
    void theKvBackedCommandsRememberPerUser() throws Exception {
        t.say("r1", "ann", "/remember city Tokyo");
        waitForReplies("r1", 1);
        t.say("r1", "ann", "/recall city");
        t.say("r1", "bob", "/recall city");
        List<String> replies = waitForReplies("r1", 3);
        assertThat(replies).containsExactly("Remembered city.", "city: Tokyo", "I have nothing under city.");
    }

    @Test
    void registerIsADialogOfTypedQuestionsThroughTheChatApi() throws Exception {
        t.say("reg", "ann", "/register");
        waitForReplies("reg", 1);
        t.say("reg", "bob", "/echo not an answer"); // another user: runs as usual
        waitForReplies("reg", 2);
        t.say("reg", "ann", "Ann");
        waitForReplies("reg", 3);
        t.say("reg", "ann", "thirty");
        waitForReplies("reg", 4);
        t.say("reg", "ann", "31");
        waitForReplies("reg", 5);
        t.say("reg", "ann", "20");
        waitForReplies("reg", 6);
        t.say("reg", "ann", "/recall profile");

        assertThat(waitForReplies("reg", 7)).containsExactly(
                "What is your name? (/cancel stops)",
                "not an answer",
                "How old are you, Ann?",
                "Expected a number, got 'thirty'. How old are you, Ann?",
                "Your favourite die: how many sides?",
                "Registered Ann (31), who rolls d20. /recall profile shows it.",
                "profile: Ann, 31, d20");
    }

    @Test
    void cancelStopsTheDialogAndTheNextMessageIsOrdinaryAgain() throws Exception {
        t.say("cx", "ann", "/register");
        waitForReplies("cx", 1);
        t.say("cx", "ann", "/cancel");
        waitForReplies("cx", 2);
        t.say("cx", "ann", "/echo back to normal");

        assertThat(waitForReplies("cx", 3)).containsExactly("What is your name? (/cancel stops)", "Cancelled.",
                "back to normal");
    }

    @Test
    void historyIsOldestFirstWithLimitAndBefore() throws Exception {
        for (int i = 1; i <= 5; i++) {
            assertThat(t.say("hist", "ann", "line " + i).statusCode()).isEqualTo(201);
        }
        JsonNode all = json(t.get("/api/rooms/hist/messages"));
        assertThat(all.get("messages")).extracting(m -> m.get("text").asText())
                .containsExactly("line 1", "line 2", "line 3", "line 4", "line 5");
        JsonNode last2 = json(t.get("/api/rooms/hist/messages?limit=2"));
        assertThat(last2.get("messages")).extracting(m -> m.get("text").asText()).containsExactly("line 4", "line 5");
        long seq4 = last2.get("messages").get(0).get("seq").asLong();
        JsonNode before = json(t.get("/api/rooms/hist/messages?limit=2&before=" + seq4));
        assertThat(before.get("messages")).extracting(m -> m.get("text").asText()).containsExactly("line 2", "line 3");
        assertThat(json(t.get("/api/rooms/empty/messages")).get("messages")).isEmpty();
    }

    @Test
    void aPollAnswersAtOnceWhenThereIsAlreadySomethingAfterSeq() throws Exception {
        long seq = json(t.say("p1", "ann", "first")).get("seq").asLong();
        t.say("p1", "ann", "second");
        long start = System.nanoTime();
        JsonNode r = json(t.get("/api/rooms/p1/poll?after=" + seq + "&timeout_ms=20000"));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
        assertThat(r.get("messages")).extracting(m -> m.get("text").asText()).containsExactly("second");
    }

    @Test
    void aPollWaitsForTheNextMessageAndTimesOutWith204() throws Exception {
        long seq = json(t.say("p2", "ann", "before")).get("seq").asLong();
        CompletableFuture<HttpResponse<String>> waiting = t.client.sendAsync(
                HttpRequest.newBuilder(t.uri("/api/rooms/p2/poll?after=" + seq + "&timeout_ms=20000")).build(),
                HttpResponse.BodyHandlers.ofString());
        Thread.sleep(200);
        assertThat(waiting).isNotDone();
        t.say("p2", "bob", "after");
        HttpResponse<String> r = waiting.get(10, TimeUnit.SECONDS);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(json(r).get("messages")).extracting(m -> m.get("text").asText()).containsExactly("after");

        HttpResponse<String> timedOut = t.get("/api/rooms/p2/poll?after=1000000&timeout_ms=200");
        assertThat(timedOut.statusCode()).isEqualTo(204);
        assertThat(timedOut.body()).isEmpty();
    }

    @Test
    void oneMessageAnswersManyWaitingPolls() throws Exception {
        long seq = json(t.say("fan", "ann", "hello")).get("seq").asLong();
        List<CompletableFuture<HttpResponse<String>>> polls = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            polls.add(t.client.sendAsync(HttpRequest.newBuilder(
                    t.uri("/api/rooms/fan/poll?after=" + seq + "&timeout_ms=30000")).build(),
                    HttpResponse.BodyHandlers.ofString()));
        }
        Await.until(Duration.ofSeconds(20), Duration.ofMillis(20), () -> waiters() >= 200);
        assertThat(waiters()).isEqualTo(200);
        t.say("fan", "bob", "news");
        for (CompletableFuture<HttpResponse<String>> p : polls) {
            HttpResponse<String> r = p.get(20, TimeUnit.SECONDS);
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(json(r).get("messages").get(0).get("text").asText()).isEqualTo("news");
        }
        assertThat(waiters()).isZero();
    }

    private double waiters() {
        return t.server.pipeline() == null ? -1 : metric("pulsebus_longpoll_waiters");
    }

    private double metric(String name) {
        try {
            for (String line : t.get("/metrics").body().lines().toList()) {
                if (line.startsWith(name + " ") || line.startsWith(name + "{")) {
                    return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                }
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return Double.NaN;
    }

    /** The texts the bot said in {@code room}, once there are {@code n}. */
    private List<String> waitForReplies(String room, int n) throws Exception {
        List<List<String>> last = new ArrayList<>(List.of(List.of()));
        Await.until(Duration.ofSeconds(10), Duration.ofMillis(20), () -> {
            List<String> replies = new ArrayList<>();
            for (JsonNode m : json(t.get("/api/rooms/" + room + "/messages")).get("messages")) {
                if (m.get("user").asText().equals("bot")) {
                    replies.add(m.get("text").asText());
                }
            }
            last.set(0, replies);
            return replies.size() >= n;
        });
        return last.get(0);
    }
}
