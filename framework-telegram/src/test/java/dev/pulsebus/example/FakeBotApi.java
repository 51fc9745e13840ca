package dev.pulsebus.example;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The Telegram Bot API as a polling bot sees it, answering with the Bot API's own shapes (core.telegram.org/bots/api):
 * {@code getMe}, {@code deleteWebhook}, one {@code getUpdates} batch holding {@code /echo hi} from a private chat
 * (then empty batches), and {@code sendMessage}, whose bodies it keeps.
 */
final class FakeBotApi implements AutoCloseable {

    static final String TOKEN = "123456:test-token";

    private final HttpServer server;
    private final AtomicBoolean delivered = new AtomicBoolean();
    /** The JSON bodies of the {@code sendMessage} calls, in order. */
    final List<String> sent = new CopyOnWriteArrayList<>();

    FakeBotApi() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/bot" + TOKEN + "/", this::handle);
        server.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    private void handle(HttpExchange ex) throws IOException {
        String method = ex.getRequestURI().getPath().substring(("/bot" + TOKEN + "/").length());
        String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        String answer = switch (method) {
            case "getMe" -> "{\"ok\":true,\"result\":{\"id\":123456,\"is_bot\":true,\"first_name\":\"Echo\","
                    + "\"username\":\"echo_bot\"}}";
            case "deleteWebhook" -> "{\"ok\":true,\"result\":true}";
            case "getUpdates" -> updates();
            case "sendMessage" -> {
                sent.add(body);
                yield "{\"ok\":true,\"result\":{\"message_id\":11,\"date\":1700000001,"
                        + "\"chat\":{\"id\":42,\"type\":\"private\",\"first_name\":\"Ann\"},\"text\":\"hi\"}}";
            }
            default -> "{\"ok\":false,\"error_code\":404,\"description\":\"Not Found\"}";
        };
        byte[] bytes = answer.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(200, bytes.length);
        ex.getResponseBody().write(bytes);
        ex.close();
    }

    private String updates() {
        if (delivered.compareAndSet(false, true)) {
            return "{\"ok\":true,\"result\":[{\"update_id\":1,\"message\":{\"message_id\":10,\"date\":1700000000,"
                    + "\"chat\":{\"id\":42,\"type\":\"private\",\"first_name\":\"Ann\"},"
                    + "\"from\":{\"id\":42,\"is_bot\":false,\"first_name\":\"Ann\"},\"text\":\"/echo hi\","
                    + "\"entities\":[{\"offset\":0,\"length\":5,\"type\":\"bot_command\"}]}}]}";
        }
        try {
            Thread.sleep(200); // a long poll with nothing new
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return "{\"ok\":true,\"result\":[]}";
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
