package dev.pulsebus.onebot;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * One way to a bot's actions: a WebSocket ({@link WsConnection}), a forward connection with its queue
 * ({@link ForwardLink}) or the implementation's HTTP API ({@link HttpLink}). {@link #call} completes with the
 * response's {@code data} (JSON null when it has none), on a thread that is not an I/O thread.
 */
abstract class Link {

    /** Sends {@code action}; for v12, {@code botPlatform} and {@code selfId} name the bot in {@code self}. */
    abstract CompletableFuture<JsonNode> call(Protocol.Action action, String selfId, @Nullable String botPlatform);

    /**
     * Completes {@code result} from {@code response}: its {@code data} when {@code retcode} is 0 (or 1,
     * v11's "accepted, runs later"), else a {@link OneBotActionException} with the action, retcode and message.
     */
    static void complete(String action, JsonNode response, CompletableFuture<JsonNode> result) {
        long retcode = response.path("retcode").asLong(-1);
        if (retcode == 0 || (retcode == 1 && "async".equals(response.path("status").asText()))) {
            JsonNode data = response.get("data");
            result.complete(data == null ? NullNode.getInstance() : data);
            return;
        }
        String message = response.path("message").asText(""); // v12
        if (message.isEmpty()) {
            message = response.path("wording").asText(response.path("msg").asText("")); // v11 implementations
        }
        if (message.isEmpty()) {
            message = "status " + response.path("status").asText("?");
        }
        result.completeExceptionally(OneBotActionException.failed(action, retcode, message));
    }
}
