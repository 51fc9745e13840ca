package dev.pulsebus.telegram;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulsebus.event.PrivateMessage;
import dev.pulsebus.server.PulseBusServer;
import dev.pulsebus.testing.Await;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Webhook mode in the real server, its Bot API the {@link FakeBotApi} (the emulator sends no secret token):
 * setWebhook at start, posts with the right secret taken and answered after the pipeline, others 401.
 */
class TelegramWebhookTest {

    private static final String SECRET = "s3cret-Token_1";
    private static final String UPDATE = """
            {"update_id": 10000, "message": {"message_id": 1365, "date": 1441645532,
             "from": {"id": 1111111, "is_bot": false, "first_name": "Test Firstname", "username": "Testusername"},
             "chat": {"id": 1111111, "type": "private", "first_name": "Test Firstname"}, "text": "hello there"}}
            """;

    @TempDir
    Path dir;
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private PulseBusServer server(FakeBotApi api) throws Exception {
        return server(api, "webhook_secret = \"" + SECRET + "\"");
    }

    private PulseBusServer server(FakeBotApi api, String secretLine) throws Exception {
        return TelegramServers.start(dir, """
                mode = "webhook"
                token = "%s"
                api_url = "%s"
                webhook_url = "https://bot.example.com"
                %s
                """.formatted(FakeBotApi.TOKEN, api.url(), secretLine));
    }

    private HttpResponse<String> post(PulseBusServer server, String path, String secret) throws Exception {
        return post(server, path, secret, UPDATE);
    }

    private HttpResponse<String> post(PulseBusServer server, String path, String secret, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(server.url() + path)).timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
        if (secret != null) {
            b.header("X-Telegram-Bot-Api-Secret-Token", secret);
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private String get(PulseBusServer server, String path) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create(server.url() + path)).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    @Test
    void setsTheWebhookAndTakesPostsWithTheRightSecretOnlyAfterThePipeline() throws Exception {
        try (FakeBotApi api = new FakeBotApi(); PulseBusServer server = server(api)) {
            List<PrivateMessage> seen = new CopyOnWriteArrayList<>();
            server.bus().subscribe(PrivateMessage.class, seen::add);
            assertThat(Await.until(Duration.ofSeconds(10), () -> !api.calls("setWebhook").isEmpty())).isTrue();
            FakeBotApi.Call set = api.calls("setWebhook").get(0);
            assertThat(set.params().path("url").asText()).isEqualTo("https://bot.example.com/telegram/123456/webhook");
            assertThat(set.params().path("secret_token").asText()).isEqualTo(SECRET);
            assertThat(Await.until(Duration.ofSeconds(10),
                    () -> get(server, "/health").contains("\"telegram:123456\""))).isTrue();
            assertThat(Await.until(Duration.ofSeconds(10), () -> server.adapters(TelegramAdapter.class).get(0).health().get("telegram:123456")))
                    .isTrue();

            assertThat(post(server, "/telegram/123456/webhook", "wrong").statusCode()).isEqualTo(401);
            assertThat(post(server, "/telegram/123456/webhook", null).statusCode()).isEqualTo(401);
            assertThat(seen).isEmpty();

            HttpResponse<String> ok = post(server, "/telegram/123456/webhook", SECRET);
            assertThat(ok.statusCode()).isEqualTo(200);
            assertThat(seen).hasSize(1); // the inline handler ran before the answer was written
            assertThat(seen.get(0).id()).isEqualTo("tg:123456:10000");
            assertThat(seen.get(0).message().plainText()).isEqualTo("hello there");
            assertThat(post(server, "/telegram/999/webhook", SECRET).statusCode()).isEqualTo(404);

            String metrics = get(server, "/metrics");
            assertThat(metrics).contains("pulsebus_telegram_webhook_refused_total 2.0")
                    .contains("pulsebus_telegram_updates_total{type=\"message\"} 1.0")
                    .contains("pulsebus_telegram_api_calls_total{method=\"setWebhook\",outcome=\"ok\"} 1.0")
                    .contains("pulsebus_telegram_bad_updates_total{reason=\"invalid\"} 0.0");

            // JSON but no update: counted and answered 200 (posting it again would not help); not JSON: 400
            assertThat(post(server, "/telegram/123456/webhook", SECRET, "{\"message\": {}}").statusCode()).isEqualTo(200);
            assertThat(post(server, "/telegram/123456/webhook", SECRET, "[1, 2").statusCode()).isEqualTo(400);
            assertThat(get(server, "/metrics")).contains("pulsebus_telegram_bad_updates_total{reason=\"invalid\"} 1.0")
                    .contains("pulsebus_telegram_bad_updates_total{reason=\"not_json\"} 1.0");
            assertThat(seen).hasSize(1);
        }
    }

    @Test
    void withoutAConfiguredSecretARandomOneIsSetAndForgedPostsRunNothing() throws Exception {
        try (FakeBotApi api = new FakeBotApi(); PulseBusServer server = server(api, "")) {
            List<PrivateMessage> seen = new CopyOnWriteArrayList<>();
            server.bus().subscribe(PrivateMessage.class, seen::add);
            assertThat(Await.until(Duration.ofSeconds(10), () -> !api.calls("setWebhook").isEmpty())).isTrue();
            String secret = api.calls("setWebhook").get(0).params().path("secret_token").asText();
            assertThat(secret).matches("[A-Za-z0-9_-]{43}");

            // the bot id is public: a post without the header, or with an empty one, is refused and runs nothing
            assertThat(post(server, "/telegram/123456/webhook", null).statusCode()).isEqualTo(401);
            assertThat(post(server, "/telegram/123456/webhook", "").statusCode()).isEqualTo(401);
            assertThat(post(server, "/telegram/123456/webhook", "wrong").statusCode()).isEqualTo(401);
            assertThat(seen).isEmpty();
            assertThat(get(server, "/metrics")).contains("pulsebus_telegram_webhook_refused_total 3.0");

            assertThat(post(server, "/telegram/123456/webhook", secret).statusCode()).isEqualTo(200);
            assertThat(seen).hasSize(1);
        }
    }
}
