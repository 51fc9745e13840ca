package dev.pulsebus.telegram;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulsebus.internal.Json;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.Executors;

/**
 * Bot API calls ({@code POST <api_url>/bot<token>/<method>} with a JSON body) over the JDK's
 * {@link HttpClient}, blocking the calling virtual thread. A call answers its {@code result}, or throws
 * {@link TelegramApiException} when Telegram says {@code "ok": false}, or {@link IOException} when the
 * network or the answer failed (not JSON: a proxy's error page). Thread-safe: one client for every bot.
 */
final class BotApi implements AutoCloseable {

    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(30);

    private final String apiUrl;
    private final HttpClient client;
    private final TelegramMetrics metrics;

    BotApi(String apiUrl, TelegramMetrics metrics) {
        this.apiUrl = apiUrl;
        this.metrics = metrics;
        this.client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10))
                .executor(Executors.newVirtualThreadPerTaskExecutor()).build();
    }

    /** {@code method} with {@code params}, waiting at most the usual 30 s. */
    JsonNode call(String token, String method, ObjectNode params) throws IOException, InterruptedException {
        return call(token, method, params, CALL_TIMEOUT);
    }

    /** {@code method} with {@code params}, waiting at most {@code timeout} for the answer. */
    JsonNode call(String token, String method, ObjectNode params, Duration timeout)
            throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(apiUrl + "/bot" + token + "/" + method))
                .timeout(timeout).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(Json.MAPPER.writeValueAsBytes(params))).build();
        HttpResponse<byte[]> response;
        try {
            response = client.send(request, HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException e) {
            metrics.call(method, TelegramMetrics.Outcome.NETWORK);
            throw e;
        }
        JsonNode body;
        try {
            body = Json.MAPPER.readTree(response.body());
        } catch (IOException e) {
            metrics.call(method, TelegramMetrics.Outcome.NETWORK);
            throw new IOException(method + " answered HTTP " + response.statusCode() + " with a body that is not "
                    + "JSON", e);
        }
        if (body == null || !body.isObject()) {
            metrics.call(method, TelegramMetrics.Outcome.NETWORK);
            throw new IOException(method + " answered HTTP " + response.statusCode() + " with no JSON object");
        }
        if (body.path("ok").asBoolean(false)) {
            metrics.call(method, TelegramMetrics.Outcome.OK);
            return body.path("result");
        }
        int code = body.path("error_code").asInt(response.statusCode());
        TelegramMetrics.Outcome outcome = code == 429 ? TelegramMetrics.Outcome.RATE_LIMITED
                : code >= 500 ? TelegramMetrics.Outcome.SERVER_ERROR : TelegramMetrics.Outcome.FAILED;
        metrics.call(method, outcome);
        throw new TelegramApiException(method, code, body.path("description").asText(""),
                body.path("parameters").path("retry_after").asInt(0));
    }

    @Override
    public void close() {
        client.close();
    }
}
