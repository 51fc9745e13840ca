package dev.pulsebus.telegram;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulsebus.adapter.JsonBytes;
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
        JsonNode result = call(token, method, params, timeout, j -> {
            int from = j.position();
            j.skip();
            return Json.MAPPER.readTree(j.bytesSince(from));
        });
        return result == null ? MissingNode.getInstance() : result;
    }

    /** Reads an answer's {@code result}, the value that is next in the reader, to its end. */
    @FunctionalInterface
    interface ResultReader<T> {
        @Nullable T read(JsonBytes j) throws IOException;
    }

    /**
     * {@code method} with {@code params}, its {@code result} read by {@code reader} as the answer streams in
     * (null when it has none), waiting at most {@code timeout} for the answer.
     */
    <T> @Nullable T call(String token, String method, ObjectNode params, Duration timeout, ResultReader<T> reader)
            throws IOException, InterruptedException {
        return call(token, method, params, timeout, new JsonBytes(), reader);
    }

    /**
     * As {@link #call(String, String, ObjectNode, Duration, ResultReader)}, the answer read with {@code json}
     * (a caller's own, reused call after call on one thread).
     */
    <T> @Nullable T call(String token, String method, ObjectNode params, Duration timeout, JsonBytes json,
            ResultReader<T> reader) throws IOException, InterruptedException {
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
        try {
            JsonBytes j = json.reset(response.body(), 0, response.body().length);
            if (j.kind() != JsonBytes.OBJECT) {
                throw new IOException("not a JSON object");
            }
            if (j.beginObject()) {
                do {
                    if (j.nameIs("ok")) {
                        ok = j.kind() == JsonBytes.TRUE;
                        j.skip();
                    } else if (j.nameIs("result")) {
                        result = reader.read(j);
                    } else if (j.nameIs("error_code")) {
                        code = (int) j.longValue(code);
                    } else if (j.nameIs("description")) {
                        description = scalar(j);
                    } else if (j.nameIs("parameters")) {
                        retryAfter = retryAfter(j);
                    } else {
                        j.skip();
                    }
                } while (j.nextField());
            }
            j.finish();
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

    /** {@code parameters.retry_after}, 0 when there is none; the parameters read to their end. */
    private static int retryAfter(JsonBytes j) throws IOException {
        int retryAfter = 0;
        if (j.kind() != JsonBytes.OBJECT) {
            j.skip();
            return 0;
        }
        if (j.beginObject()) {
            do {
                if (j.nameIs("retry_after")) {
                    retryAfter = (int) j.longValue(0);
                } else {
                    j.skip();
                }
            } while (j.nextField());
        }
        return retryAfter;
    }

    /** The scalar that is next as text ({@code ""} for a null, an object or an array). */
    private static String scalar(JsonBytes j) throws IOException {
        if (j.nullValue()) {
            return "";
        }
        return j.text();
    }

    @Override
    public void close() {
        client.close();
    }
}
