package dev.pulsebus.telegram;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulsebus.server.PulseBusServer;
import dev.pulsebus.server.TestCluster;
import dev.pulsebus.testing.Await;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Telegram webhooks in a cluster of two servers (one JVM; the local RabbitMQ, Redis and PostgreSQL): updates
 * posted to either instance go through the broker to the instance holding their chat and are answered once each
 * (a retransmitted update too), each chat's answers in order. Skipped, saying why, when a server is absent.
 */
class TelegramClusterTest {

    private static final String SECRET = "cluster-Secret_1";
    private static final int CHATS = 8;
    private static final int PER_CHAT = 6;

    @TempDir
    Path dir;
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private static PulseBusServer start(TestCluster cluster, Path dir, String name, FakeBotApi api) throws Exception {
        return cluster.start(dir, name, """
                [adapters.telegram]
                mode = "webhook"
                token = "%s"
                api_url = "%s"
                webhook_url = "https://bot.example.com"
                webhook_secret = "%s"
                """.formatted(FakeBotApi.TOKEN, api.url(), SECRET));
    }

    private static String update(long updateId, int chat, String text) {
        return """
                {"update_id": %d, "message": {"message_id": %d, "date": 1441645532,
                 "from": {"id": 1111111, "is_bot": false, "first_name": "Test"},
                 "chat": {"id": %d, "type": "group", "title": "Group %d"}, "text": "%s"}}
                """.formatted(updateId, updateId, -1000 - chat, chat, text);
    }

    private int post(PulseBusServer server, String body) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create(server.url() + "/telegram/123456/webhook"))
                .timeout(Duration.ofSeconds(20)).header("Content-Type", "application/json")
                .header("X-Telegram-Bot-Api-Secret-Token", SECRET)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString())
                .statusCode();
    }

    @Test
    void updatesPostedToEitherInstanceAreAnsweredOnceInOrderByTheHolderOfTheirChat() throws Exception {
        try (TestCluster cluster = new TestCluster("TelegramClusterTest"); FakeBotApi api = new FakeBotApi()) {
            List<PulseBusServer> servers = List.of(start(cluster, dir, "a", api), start(cluster, dir, "b", api));
            long id = 500;
            for (int n = 0; n < PER_CHAT; n++) {
                for (int chat = 0; chat < CHATS; chat++) {
                    String body = update(id++, chat, "/echo " + chat + "-" + n);
                    assertThat(post(servers.get((chat + n) % 2), body)).isEqualTo(200);
                    if (chat == 3 && n == 2) { // Telegram posts an update again when it saw no 200 in time
                        assertThat(post(servers.get((chat + n + 1) % 2), body)).isEqualTo(200);
                    }
                }
            }
            int expected = CHATS * PER_CHAT;
            assertThat(Await.until(Duration.ofSeconds(30), () -> api.calls("sendMessage").size() >= expected))
                    .as("every update answered").isTrue();
            Thread.sleep(500); // an update answered twice would show by now
            Map<Long, List<String>> byChat = new LinkedHashMap<>();
            for (FakeBotApi.Call c : api.calls("sendMessage")) {
                byChat.computeIfAbsent(c.params().path("chat_id").asLong(), k -> new ArrayList<>())
                        .add(c.params().path("text").asText());
            }
            assertThat(api.calls("sendMessage")).as("each once, the retransmitted one too").hasSize(expected);
            for (int chat = 0; chat < CHATS; chat++) {
                List<String> want = new ArrayList<>();
                for (int n = 0; n < PER_CHAT; n++) {
                    want.add(chat + "-" + n);
                }
                assertThat(byChat.get((long) (-1000 - chat))).as("chat %d, in order", chat).isEqualTo(want);
            }
            double a = TestCluster.eventsHandled(servers.get(0));
            double b = TestCluster.eventsHandled(servers.get(1));
            System.out.printf("[pulsebus] TelegramClusterTest: %d updates answered once each; handled on a %.0f, "
                    + "on b %.0f%n", expected, a, b);
            // half were posted to b, whichever holds their chats: all went through the broker, the copy did not
            assertThat(a + b).as("handed over through the broker, once each").isEqualTo(expected);
            double broker = 0;
            for (PulseBusServer s : servers) {
                broker += TestCluster.metric(s, "pulsebus_cluster_platform_events_total", "path=\"broker\"");
            }
            assertThat(broker).as("every post handed to the broker, the retransmit too").isEqualTo(expected + 1);
        }
    }

    /**
     * Polling in a cluster: the polling instance loses Redis, so it cannot renew the bot's lease; it stops polling
     * before the lease could expire (its poll under way cut off), the other takes the lease once it has expired and
     * polls on from the offset stored in the shared database. Updates sent before, during and after are answered
     * once each, in order per chat.
     */
    @Test
    void aPollerThatCannotRenewItsLeaseStopsAndTheOtherPollsOnAnsweringEachOnce() throws Exception {
        try (TestCluster cluster = new TestCluster("TelegramClusterTest"); FakeBotApi api = new FakeBotApi();
             dev.pulsebus.testing.TcpProxy redisA = new dev.pulsebus.testing.TcpProxy(6379)) {
            String polling = """
                    [adapters.telegram]
                    mode = "polling"
                    token = "%s"
                    api_url = "%s"
                    """.formatted(FakeBotApi.TOKEN, api.url());
            PulseBusServer a = cluster.start(dir, "a", "redis = \"redis://127.0.0.1:" + redisA.port() + "\"\n"
                    + polling); // right after the [cluster] keys TestCluster writes
            assertThat(Await.until(Duration.ofSeconds(20), () -> polls(a) == 1)).as("a takes the lease").isTrue();
            PulseBusServer b = cluster.start(dir, "b", polling);
            long id = 700;
            int chats = 4;
            int[] sent = new int[chats];
            id = burst(api, id, chats, sent, 3);
            assertThat(Await.until(Duration.ofSeconds(30), () -> api.calls("sendMessage").size() >= chats * 3)).isTrue();
            assertThat(polls(b)).as("b waits its turn").isEqualTo(0);

            redisA.cut(); // a can no longer renew: it stops before its lease may expire, and b takes it after
            id = burst(api, id, chats, sent, 3);
            assertThat(Await.until(Duration.ofSeconds(30), () -> polls(b) == 1)).as("b polls").isTrue();
            assertThat(polls(a)).as("a stopped").isEqualTo(0);
            burst(api, id, chats, sent, 3);
            int expected = chats * 9;
            assertThat(Await.until(Duration.ofSeconds(30), () -> api.calls("sendMessage").size() >= expected))
                    .as("every update answered").isTrue();
            Thread.sleep(500); // an update answered twice would show by now
            assertThat(api.calls("sendMessage")).as("each once").hasSize(expected);
            Map<Long, List<String>> byChat = new LinkedHashMap<>();
            for (FakeBotApi.Call c : api.calls("sendMessage")) {
                byChat.computeIfAbsent(c.params().path("chat_id").asLong(), k -> new ArrayList<>())
                        .add(c.params().path("text").asText());
            }
            for (int chat = 0; chat < chats; chat++) {
                List<String> want = new ArrayList<>();
                for (int n = 0; n < 9; n++) {
                    want.add(chat + "-" + n);
                }
                assertThat(byChat.get((long) (-1000 - chat))).as("chat %d, in order", chat).isEqualTo(want);
            }
            redisA.restore();
        }
    }

    /** Queues {@code each} /echo updates in every one of {@code chats}; the next update id. */
    private static long burst(FakeBotApi api, long id, int chats, int[] sent, int each) throws Exception {
        for (int n = 0; n < each; n++) {
            for (int chat = 0; chat < chats; chat++) {
                api.push(update(id++, chat, "/echo " + chat + "-" + sent[chat]++));
            }
        }
        return id;
    }

    /** {@code pulsebus_telegram_polling} of {@code server}: 1 while it polls the bot. */
    private static double polls(PulseBusServer server) throws Exception {
        return TestCluster.metric(server, "pulsebus_telegram_polling", "");
    }
}
