package dev.pulsebus.telegram;


import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulsebus.internal.Json;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The npm package {@code telegram-test-api} (a Bot API emulator written by others, pinned 4.2.1 and
 * installed by {@code .ci/run} into {@code $PULSEBUS_NPM_CACHE/telegram-test-api}, by default
 * {@code ~/.cache/pulsebus-npm}) run by Node.js as a child process on a free port. Its client API plays the
 * user: {@link #say} posts a message or command to the bot, {@link #botMessages} reads what the bot sent to a
 * chat. Without Node.js or the package the test is skipped, saying why.
 */
public final class TelegramEmulator implements AutoCloseable {

    public static final String TOKEN = "666:emulated-token"; // its getMe is always bot 666, @TestNameBot
    static final String USERNAME = "TestNameBot";

    private final Process process;
    public final String apiUrl;
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private TelegramEmulator(Process process, String apiUrl) {
        this.process = process;
        this.apiUrl = apiUrl;
    }

    static Path moduleDir() {
        String cache = System.getenv("PULSEBUS_NPM_CACHE");
        Path root = cache != null && !cache.isBlank() ? Path.of(cache)
                : Path.of(System.getProperty("user.home"), ".cache", "pulsebus-npm");
        return root.resolve("telegram-test-api").resolve("node_modules");
    }

    /** Starts the emulator, or skips the calling test with the reason when it cannot be run here. */
    public static TelegramEmulator start() throws Exception {
        Path modules = moduleDir();
        String why = null;
        if (!canRun("node", "--version")) {
            why = "no Node.js (node) on PATH";
        } else if (!Files.isDirectory(modules.resolve("telegram-test-api"))) {
            why = "telegram-test-api is not installed in " + modules + " (.ci/run installs it)";
        }
        dev.pulsebus.testing.Required.service("telegram-emulator",
                why == null ? null : "Telegram emulator tests: " + why);
        Path script = Files.createTempFile("pulsebus-telegram-emulator", ".js");
        try (InputStream in = Objects.requireNonNull(TelegramEmulator.class.getResourceAsStream("emulator.js"))) {
            Files.write(script, in.readAllBytes());
        }
        script.toFile().deleteOnExit();
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        ProcessBuilder pb = new ProcessBuilder("node", script.toString(), Integer.toString(port))
                .redirectErrorStream(true);
        pb.environment().put("NODE_PATH", modules.toString());
        Process p = pb.start();
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line = CompletableFuture.supplyAsync(() -> {
            try {
                String l;
                while ((l = out.readLine()) != null) {
                    if (l.startsWith("listening ")) {
                        return l;
                    }
                    System.out.println("[emulator] " + l);
                }
                return null;
            } catch (IOException e) {
                return null;
            }
        }).get(30, TimeUnit.SECONDS);
        if (line == null) {
            p.destroyForcibly();
            throw new IllegalStateException("the Telegram emulator did not start");
        }
        Thread.ofVirtual().start(() -> out.lines().forEach(l -> System.out.println("[emulator] " + l)));
        return new TelegramEmulator(p, "http://127.0.0.1:" + port);
    }

    private static boolean canRun(String... command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * The user {@code userId} says {@code text} in chat {@code chatId} of {@code type} ({@code private} or
     * {@code group}); a text starting with {@code /} is sent as a command (with its bot_command entity).
     */
    public void say(long userId, long chatId, String type, String text) throws Exception {
        say(TOKEN, userId, chatId, type, text);
    }

    /** As {@link #say(long, long, String, String)}, to the bot of {@code token}. */
    void say(String token, long userId, long chatId, String type, String text) throws Exception {
        ObjectNode m = Json.MAPPER.createObjectNode().put("botToken", token).put("date", System.currentTimeMillis() / 1000)
                .put("text", text);
        m.putObject("from").put("id", userId).put("first_name", "User" + userId).put("username", "user" + userId)
                .put("is_bot", false);
        m.putObject("chat").put("id", chatId).put("type", type).put("title", "Chat " + chatId);
        String route = "/sendMessage";
        if (text.startsWith("/")) {
            int end = text.indexOf(' ') < 0 ? text.length() : text.indexOf(' ');
            m.putArray("entities").addObject().put("offset", 0).put("length", end).put("type", "bot_command");
            route = "/sendCommand";
        }
        post(route, m);
    }

    /** A button press on the bot's message: a callback_query with {@code data}. */
    void press(long userId, long chatId, String data) throws Exception {
        ObjectNode q = Json.MAPPER.createObjectNode().put("botToken", TOKEN).put("data", data);
        q.putObject("from").put("id", userId).put("first_name", "User" + userId).put("is_bot", false);
        ObjectNode message = q.putObject("message").put("message_id", 1).put("date", System.currentTimeMillis() / 1000);
        message.putObject("chat").put("id", chatId).put("type", "private");
        post("/sendCallback", q);
    }

    /** What the bot sent to {@code chatId} since the last call: the emulator's records, each with its {@code message}. */
    public JsonNode botMessages(long chatId) throws Exception {
        return botMessages(TOKEN, chatId);
    }

    /** What the bot of {@code token} sent to {@code chatId} since the last call. */
    JsonNode botMessages(String token, long chatId) throws Exception {
        return post("/getUpdates", Json.MAPPER.createObjectNode().put("token", token).put("chatId", chatId))
                .path("result");
    }

    private JsonNode post(String route, ObjectNode body) throws Exception {
        HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(apiUrl + route))
                .header("Content-Type", "application/json").timeout(Duration.ofSeconds(10))
                .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException(route + " answered " + r.statusCode() + ": " + r.body());
        }
        return Json.MAPPER.readTree(r.body());
    }

    @Override
    public void close() throws Exception {
        process.getOutputStream().close();
        if (!process.waitFor(5, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }
}
