package dev.pulsebus.bench.adapter;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pulsebus.internal.Json;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The floor of {@code adapter.telegram_roundtrip}: a do-nothing bot on the same transport as the adapter
 * (the JDK's {@code HttpClient} on virtual threads), which polls its own {@link FakeTelegram} and answers
 * each update at once with the {@code sendMessage} PulseBus would send, without a pipeline, a KV write or a
 * decoder beyond a tree: what the harness and the HTTP exchanges cost by themselves.
 */
final class TelegramFloorBot implements AutoCloseable {

    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final HttpClient client = HttpClient.newBuilder().executor(executor).build();
    private final String base;
    private final Thread poller;
    private volatile boolean stopping;

    TelegramFloorBot(String apiUrl) {
        this.base = apiUrl + "/bot" + TelegramUpdates.TOKEN + "/";
        this.poller = Thread.ofVirtual().name("telegram-floor-bot").unstarted(this::poll);
    }

    /** Starts polling. */
    void start() {
        poller.start();
    }

    private void poll() {
        long offset = 0;
        while (!stopping) {
            try {
                JsonNode answer = post("getUpdates", "{\"timeout\":50,\"offset\":" + offset + "}");
                for (JsonNode u : answer.path("result")) {
                    offset = u.path("update_id").asLong() + 1;
                    JsonNode m = u.path("message");
                    String send = "{\"chat_id\":" + m.path("chat").path("id").asLong() + ",\"text\":\"hi\","
                            + "\"reply_parameters\":{\"message_id\":" + m.path("message_id").asLong()
                            + ",\"allow_sending_without_reply\":true}}";
                    executor.execute(() -> {
                        try {
                            post("sendMessage", send);
                        } catch (IOException | InterruptedException e) {
                            // counted by the fake as unanswered
                        }
                    });
                }
            } catch (IOException e) {
                if (!stopping) {
                    Thread.onSpinWait();
                }
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private JsonNode post(String method, String body) throws IOException, InterruptedException {
        HttpResponse<byte[]> r = client.send(HttpRequest.newBuilder(URI.create(base + method))
                .timeout(Duration.ofSeconds(65)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8)).build(),
                HttpResponse.BodyHandlers.ofByteArray());
        return Json.MAPPER.readTree(r.body());
    }

    @Override
    public void close() throws InterruptedException {
        stopping = true;
        poller.interrupt();
        poller.join(Duration.ofSeconds(5));
        client.close();
        executor.shutdownNow();
    }
}
