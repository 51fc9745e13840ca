package dev.pulsebus.telegram;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulsebus.internal.Json;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.Executors;
import org.jspecify.annotations.Nullable;

/**
 * Bot API calls ({@code POST <api_url>/bot<token>/<method>} with a JSON body) over the JDK's
 * {@link HttpClient}, blocking the calling virtual thread. A call answers its {@code result}, or throws
 * {@link TelegramApiException} when Telegram says {@code "ok": false}, or {@link IOException} when the
 * network or the answer failed (not JSON: a proxy's error page). The answer is read as it streams: a
 * caller can read its {@code result} without a tree ({@code getUpdates}' updates straight into events).
 * Thread-safe: one client for every bot.
 */
final class BotApi implements AutoCloseable {

    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(30);
    private static final JsonFactory JSON = Json.MAPPER.getFactory();

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
        JsonNode result = call(token, method, params, timeout, p -> (JsonNode) Json.MAPPER.readTree(p));
        return result == null ? MissingNode.getInstance() : result;
    }

    /** Reads an answer's {@code result} from the parser at its first token, leaving the parser at its end. */
    @FunctionalInterface
    interface ResultReader<T> {
        @Nullable T read(JsonParser p) throws IOException;
    }

    /**
     * {@code method} with {@code params}, its {@code result} read by {@code reader} as the answer streams in
     * (null when it has none), waiting at most {@code timeout} for the answer.
     */
    <T> @Nullable T call(String token, String method, ObjectNode params, Duration timeout, ResultReader<T> reader)
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
        boolean ok = false;
        T result = null;
        int code = response.statusCode();
        String description = "";
        int retryAfter = 0;
        try (JsonParser p = JSON.createParser(response.body())) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new JsonParseException(p, "not a JSON object");
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken v = p.nextToken();
                switch (field) {
                    case "ok" -> ok = v == JsonToken.VALUE_TRUE;
                    case "result" -> result = reader.read(p);
                    case "error_code" -> code = p.getValueAsInt(code);
                    case "description" -> description = p.getValueAsString("");
                    case "parameters" -> retryAfter = retryAfter(p, v);
                    default -> p.skipChildren();
                }
            }
        } catch (IOException e) {
            metrics.call(method, TelegramMetrics.Outcome.NETWORK);
            throw new IOException(method + " answered HTTP " + response.statusCode() + " with a body that is not "
                    + "a JSON object", e);
        }
        if (ok) {
            metrics.call(method, TelegramMetrics.Outcome.OK);
            return result;
        }
        TelegramMetrics.Outcome outcome = code == 429 ? TelegramMetrics.Outcome.RATE_LIMITED
                : code >= 500 ? TelegramMetrics.Outcome.SERVER_ERROR : TelegramMetrics.Outcome.FAILED;
        metrics.call(method, outcome);
        throw new TelegramApiException(method, code, description, retryAfter);
    }

    /** {@code parameters.retry_after}, the parser at the parameters' first token and left at their end. */
    private static int retryAfter(JsonParser p, JsonToken t) throws IOException {
        int retryAfter = 0;
        if (t != JsonToken.START_OBJECT) {
            p.skipChildren();
            return 0;
        }
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            p.nextToken();
            if (field.equals("retry_after")) {
                retryAfter = p.getValueAsInt(0);
            }
            p.skipChildren();
        }
        return retryAfter;
    }

    @Override
    public void close() {
        client.close();
    }
}
