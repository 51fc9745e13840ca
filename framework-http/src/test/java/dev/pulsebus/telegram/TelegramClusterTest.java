package dev.pulsebus.telegram;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.pulsebus.cluster.Cluster;
import dev.pulsebus.server.PulseBusServer;
import dev.pulsebus.server.ServerConfig;
import dev.pulsebus.testing.Await;
import dev.pulsebus.testing.PostgresSchema;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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

    private static void require(String what, int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
        } catch (IOException e) {
            System.err.println("[pulsebus] TelegramClusterTest skipped: no " + what + " at 127.0.0.1:" + port);
            assumeTrue(false, "no " + what + " at 127.0.0.1:" + port);
        }
    }

    private PulseBusServer start(String name, PostgresSchema schema, FakeBotApi api) throws Exception {
        Path d = Files.createDirectories(dir.resolve(name));
        Path file = Files.writeString(d.resolve("pulsebus.toml"), """
                [server]
                port = 0
                [storage]
                data_dir = "%s"
                jdbc_url = "%s"
                [cluster]
                enabled = true
                instance = "%s"
                partitions = 8
                [adapters.telegram]
                mode = "webhook"
                token = "%s"
                api_url = "%s"
                webhook_url = "https://bot.example.com"
                webhook_secret = "%s"
                """.formatted(d.resolve("data").toString().replace("\\", "/"), schema.jdbcUrl(), name,
                FakeBotApi.TOKEN, api.url(), SECRET));
        return PulseBusServer.start(ServerConfig.load(file, false, Map.of()));
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

    private double handledHere(PulseBusServer server) throws Exception {
        String metrics = client.send(HttpRequest.newBuilder(URI.create(server.url() + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        Matcher m = Pattern.compile("(?m)^pulsebus_cluster_events_handled_total(?:\\{[^}]*\\})? (\\S+)$").matcher(metrics);
        return m.find() ? Double.parseDouble(m.group(1)) : -1;
    }

    @Test
    void updatesPostedToEitherInstanceAreAnsweredOnceInOrderByTheHolderOfTheirChat() throws Exception {
        require("RabbitMQ", 5672);
        require("Redis", 6379);
        String namespace = "pulsebus-tg-" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
        String previous = System.getProperty("pulsebus.cluster.namespace");
        System.setProperty("pulsebus.cluster.namespace", namespace);
        List<PulseBusServer> servers = new ArrayList<>();
        try (PostgresSchema schema = PostgresSchema.create("TelegramClusterTest"); FakeBotApi api = new FakeBotApi()) {
            servers.add(start("a", schema, api));
            servers.add(start("b", schema, api));
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
            double a = handledHere(servers.get(0));
            double b = handledHere(servers.get(1));
            System.out.printf("[pulsebus] TelegramClusterTest: %d updates answered once each; handled on a %.0f, "
                    + "on b %.0f%n", expected, a, b);
            // half were posted to b, whichever holds their chats: all went through the broker, the copy did not
            assertThat(a + b).as("handed over through the broker, once each").isEqualTo(expected);
        } finally {
            for (PulseBusServer s : servers) {
                s.close();
            }
            if (previous == null) {
                System.clearProperty("pulsebus.cluster.namespace");
            } else {
                System.setProperty("pulsebus.cluster.namespace", previous);
            }
            Cluster.deleteFromBroker(ServerConfig.defaults().cluster().enabledAs("cleanup").withPartitions(8),
                    namespace);
        }
    }
}
