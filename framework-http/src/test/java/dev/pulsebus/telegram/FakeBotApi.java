package dev.pulsebus.telegram;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.pulsebus.internal.Json;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An in-process Bot API on loopback, faithful to the published spec where the emulator cannot be used:
 * {@code getUpdates} honours {@code offset} (updates below it are confirmed and forgotten) and holds up to
 * {@code timeout} seconds; errors are the spec's {@code {"ok": false, "error_code", "description",
 * "parameters": {"retry_after"}}}; {@code setWebhook} keeps {@code url} and {@code secret_token}. A test
 * queues updates ({@link #push}) and scripted errors ({@link #failNext}) and reads the calls made.
 */
final class FakeBotApi implements AutoCloseable {

    static final String TOKEN = "123456:ABC-DEF1234ghIkl-zyx57W7v6u1234ew11"; // the spec's example token
    static final String USERNAME = "pulse_test_bot";
    /** A second bot, for several bots at once: its updates are its own, its getMe says {@value #USERNAME2}. */
    static final String TOKEN2 = "654321:ZYX-wvu9876srQpo-abc12D3e4f5678gh22";
    static final String USERNAME2 = "pulse_second_bot";

    /** A call to bot {@code token}. */
    record Call(String token, String method, JsonNode params, long nanos) {
    }

    private final HttpServer server;
    final List<Call> calls = new CopyOnWriteArrayList<>();
    /** Each bot's updates not yet confirmed, by token. */
    private final Map<String, List<JsonNode>> updates = Map.of(TOKEN, new ArrayList<>(), TOKEN2, new ArrayList<>());
    /** Scripted answers: method and chat_id ("" for any), then the error's code, description, retry_after. */
    private final Deque<Object[]> failures = new ArrayDeque<>();
    private final AtomicLong messageIds = new AtomicLong(1000);

    FakeBotApi() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/", this::handle);
        server.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** Queues {@code json} (an Update) for the getUpdates of bot {@link #TOKEN}. */
    void push(String json) throws IOException {
        push(TOKEN, json);
    }

    /** Queues {@code json} (an Update) for the getUpdates of bot {@code token}. */
    synchronized void push(String token, String json) throws IOException {
        Objects.requireNonNull(updates.get(token), token).add(Json.MAPPER.readTree(json));
        notifyAll();
    }

    /** The next call of {@code method} to {@code chatId} ("" for any chat) fails with this error. */
    synchronized void failNext(String method, String chatId, int code, String description, int retryAfter) {
        failures.add(new Object[] {method, chatId, code, description, retryAfter});
    }

    List<Call> calls(String method) {
        return calls.stream().filter(c -> c.method.equals(method)).toList();
    }

    List<Call> calls(String token, String method) {
        return calls.stream().filter(c -> c.token.equals(token) && c.method.equals(method)).toList();
    }

    private void handle(HttpExchange x) throws IOException {
        String path = x.getRequestURI().getPath();
        String method = path.substring(path.lastIndexOf('/') + 1);
        String token = path.startsWith("/bot") && path.lastIndexOf('/') > 4 ? path.substring(4, path.lastIndexOf('/')) : "";
        byte[] in = x.getRequestBody().readAllBytes();
        JsonNode params = in.length == 0 ? Json.MAPPER.createObjectNode() : Json.MAPPER.readTree(in);
        calls.add(new Call(token, method, params, System.nanoTime()));
        ObjectNode answer;
        try {
            answer = answer(token, method, params);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        byte[] out = answer.toString().getBytes(StandardCharsets.UTF_8);
        x.getResponseHeaders().set("Content-Type", "application/json");
        x.sendResponseHeaders(answer.path("ok").asBoolean() ? 200 : answer.path("error_code").asInt(500), out.length);
        x.getResponseBody().write(out);
        x.close();
    }

    private ObjectNode answer(String token, String method, JsonNode params) throws InterruptedException {
        if (!updates.containsKey(token)) {
            return error(401, "Unauthorized", 0);
        }
        synchronized (this) {
            for (Object[] f : failures) {
                if (f[0].equals(method) && (f[1].equals("") || f[1].equals(params.path("chat_id").asText()))) {
                    failures.remove(f);
                    return error((Integer) f[2], (String) f[3], (Integer) f[4]);
                }
            }
        }
        ObjectNode ok = Json.MAPPER.createObjectNode().put("ok", true);
        switch (method) {
            case "getMe" -> ok.putObject("result").put("id", Long.parseLong(token.substring(0, token.indexOf(':'))))
                    .put("is_bot", true).put("first_name", "Pulse")
                    .put("username", token.equals(TOKEN) ? USERNAME : USERNAME2);
            case "getUpdates" -> ok.set("result", updates(Objects.requireNonNull(updates.get(token)), params));
            case "sendMessage", "sendPhoto", "sendDocument", "sendSticker", "sendAnimation", "sendAudio", "sendVideo",
                    "sendVideoNote", "sendVoice" -> {
                ObjectNode m = ok.putObject("result").put("message_id", messageIds.incrementAndGet())
                        .put("date", System.currentTimeMillis() / 1000);
                m.putObject("chat").put("id", params.path("chat_id").asLong()).put("type", "private");
                if (params.has("text")) {
                    m.put("text", params.get("text").asText());
                }
            }
            case "setWebhook", "deleteWebhook" -> ok.put("result", true);
            default -> {
                return error(404, "Not Found: method not found", 0);
            }
        }
        return ok;
    }

    private synchronized ArrayNode updates(List<JsonNode> updates, JsonNode params) throws InterruptedException {
        long offset = params.path("offset").asLong(0);
        updates.removeIf(u -> u.path("update_id").asLong(Long.MAX_VALUE) < offset); // confirmed
        long deadline = System.nanoTime() + params.path("timeout").asLong(0) * 1_000_000_000L;
        while (updates.isEmpty() && System.nanoTime() < deadline) {
            wait(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
        }
        ArrayNode result = Json.MAPPER.createArrayNode();
        for (JsonNode u : updates) {
            if (result.size() < params.path("limit").asInt(100)) {
                result.add(u);
            }
        }
        return result;
    }

    private static ObjectNode error(int code, String description, int retryAfter) {
        ObjectNode e = Json.MAPPER.createObjectNode().put("ok", false).put("error_code", code)
                .put("description", description);
        if (retryAfter > 0) {
            e.putObject("parameters").put("retry_after", retryAfter);
        }
        return e;
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
