package dev.pulsebus.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pulsebus.internal.Json;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** The chat API as a client sees it: one HTTP client (its own connections) per instance. */
final class ChatClient {

    final URI base;
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final Duration timeout;

    ChatClient(URI base, Duration timeout) {
        this.base = base;
        this.timeout = timeout;
    }

    HttpResponse<String> say(String room, String user, String text) throws IOException, InterruptedException {
        return client.send(HttpRequest.newBuilder(base.resolve("/api/rooms/" + room + "/messages")).timeout(timeout)
                        .POST(HttpRequest.BodyPublishers.ofString(
                                "{\"user\":\"" + user + "\",\"text\":\"" + text + "\"}")).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** A say with the client's own {@code id} for it (letters, digits, {@code .-_:}), so that it may be sent again. */
    HttpResponse<String> say(String room, String user, String text, String id) throws IOException, InterruptedException {
        return client.send(HttpRequest.newBuilder(base.resolve("/api/rooms/" + room + "/messages")).timeout(timeout)
                        .POST(HttpRequest.BodyPublishers.ofString(
                                "{\"user\":\"" + user + "\",\"text\":\"" + text + "\",\"id\":\"" + id + "\"}")).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return client.send(HttpRequest.newBuilder(base.resolve(path)).timeout(timeout).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** Every message of {@code room}, oldest first, read in pages of 1000 from the newest back. */
    List<JsonNode> history(String room) throws IOException, InterruptedException {
        List<JsonNode> all = new ArrayList<>();
        long before = Long.MAX_VALUE;
        while (true) {
            HttpResponse<String> r = get("/api/rooms/" + room + "/messages?limit=1000"
                    + (before == Long.MAX_VALUE ? "" : "&before=" + before));
            if (r.statusCode() != 200) {
                throw new IOException("history of " + room + ": " + r.statusCode() + " " + r.body());
            }
            JsonNode page = Json.MAPPER.readTree(r.body()).get("messages");
            if (page.isEmpty()) {
                break;
            }
            for (int i = page.size() - 1; i >= 0; i--) {
                all.add(page.get(i));
            }
            before = page.get(0).get("seq").asLong();
        }
        Collections.reverse(all);
        return all;
    }

    static long seq(HttpResponse<String> created) throws IOException {
        return Json.MAPPER.readTree(created.body()).get("seq").asLong();
    }
}
