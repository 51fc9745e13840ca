package dev.pulsebus.onebot;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pulsebus.internal.Json;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;

/**
 * Actions over the implementation's HTTP API: v11 POSTs the parameters to {@code <url>/<action>}, v12 POSTs
 * the action request to {@code <url>}, with {@code Authorization: Bearer} when a token is set. A status
 * other than 200 fails the action with retcode 1000 + the status (as v11 maps HTTP errors onto WebSocket
 * retcodes: 1401, 1403, 1404); no answer within the action timeout fails it as a timeout. The JDK client
 * keeps its connections alive and completes on {@code executor}, never on an I/O thread.
 */
final class HttpLink extends Link {

    private final Protocol protocol;
    private final String base;
    private final String authorization;
    private final Duration timeout;
    private final HttpClient client;

    HttpLink(Protocol protocol, String url, String accessToken, long timeoutMs, Executor executor) {
        this.protocol = protocol;
        this.base = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
        this.authorization = accessToken.isEmpty() ? "" : "Bearer " + accessToken;
        this.timeout = Duration.ofMillis(timeoutMs);
        this.client = HttpClient.newBuilder().executor(executor).connectTimeout(timeout).build();
    }

    @Override
    CompletableFuture<JsonNode> call(Protocol.Action a, String selfId, @Nullable String botPlatform) {
        String action = a.name();
        byte[] body;
        URI uri;
        try {
            if (protocol.version == 11) {
                uri = URI.create(base + "/" + action);
                body = a.paramsJson();
            } else {
                uri = URI.create(base);
                body = protocol.frame(a, null, selfId, botPlatform);
            }
        } catch (IOException | IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(timeout)
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofByteArray(body));
        if (!authorization.isEmpty()) {
            request.header("Authorization", authorization);
        }
        CompletableFuture<JsonNode> result = new CompletableFuture<>();
        client.sendAsync(request.build(), HttpResponse.BodyHandlers.ofByteArray()).whenComplete((res, failure) -> {
            Throwable cause = failure instanceof CompletionException c && c.getCause() != null ? c.getCause() : failure;
            if (cause instanceof HttpTimeoutException) {
                result.completeExceptionally(OneBotActionException.timeout(action, timeout.toMillis()));
            } else if (cause != null) {
                result.completeExceptionally(OneBotActionException.refused(action, "the HTTP API at " + base
                        + " did not answer: " + cause));
            } else if (res.statusCode() != 200) {
                result.completeExceptionally(OneBotActionException.failed(action, 1000 + res.statusCode(),
                        "HTTP " + res.statusCode()));
            } else {
                try {
                    complete(action, Json.MAPPER.readTree(res.body()), result);
                } catch (IOException e) {
                    result.completeExceptionally(OneBotActionException.failed(action, -1,
                            "the HTTP API's answer is not JSON"));
                }
            }
        });
        return result;
    }
}
