package dev.pulsebus.example;

import com.sun.net.httpserver.HttpServer;
import dev.pulsebus.runtime.PulseBus;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * docs/EMBEDDING.md's polling bot, run as a user would, against a stand-in Bot API (the JDK's HTTP server, answering
 * with the Bot API's shapes): it finds no web server on its class path, answers {@code /echo hi} with
 * {@code hi}, and closes in order.
 */
public final class PollingCheck {

    private static final String TOKEN = "123456:check-token";

    public static void main(String[] args) throws Exception {
        for (String server : new String[] {"io.netty.handler.codec.http.HttpServerCodec", "io.netty.channel.Channel",
                "dev.pulsebus.server.PulseBusServer", "dev.pulsebus.netty.WriteLimit"}) {
            try {
                Class.forName(server, false, PollingCheck.class.getClassLoader());
                throw new AssertionError("a polling bot has " + server + " on its class path");
            } catch (ClassNotFoundException expected) {
                // as it should be
            }
        }
        System.out.println("no web server on the class path");
        List<String> sent = new CopyOnWriteArrayList<>();
        AtomicBoolean delivered = new AtomicBoolean();
        HttpServer api = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        api.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        api.createContext("/bot" + TOKEN + "/", ex -> {
            String method = ex.getRequestURI().getPath().substring(("/bot" + TOKEN + "/").length());
            String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            String answer = switch (method) {
                case "getMe" -> "{\"ok\":true,\"result\":{\"id\":123456,\"is_bot\":true,\"first_name\":\"Echo\","
                        + "\"username\":\"echo_bot\"}}";
                case "deleteWebhook" -> "{\"ok\":true,\"result\":true}";
                case "getUpdates" -> {
                    if (delivered.compareAndSet(false, true)) {
                        yield "{\"ok\":true,\"result\":[{\"update_id\":1,\"message\":{\"message_id\":10,"
                                + "\"date\":1700000000,\"chat\":{\"id\":42,\"type\":\"private\",\"first_name\":\"Ann\"},"
                                + "\"from\":{\"id\":42,\"is_bot\":false,\"first_name\":\"Ann\"},\"text\":\"/echo hi\","
                                + "\"entities\":[{\"offset\":0,\"length\":5,\"type\":\"bot_command\"}]}}]}";
                    }
                    try {
                        Thread.sleep(200);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    yield "{\"ok\":true,\"result\":[]}";
                }
                case "sendMessage" -> {
                    sent.add(body);
                    yield "{\"ok\":true,\"result\":{\"message_id\":11,\"date\":1700000001,"
                            + "\"chat\":{\"id\":42,\"type\":\"private\"},\"text\":\"hi\"}}";
                }
                default -> "{\"ok\":false,\"error_code\":404,\"description\":\"Not Found\"}";
            };
            byte[] bytes = answer.getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", "application/json");
            ex.sendResponseHeaders(200, bytes.length);
            ex.getResponseBody().write(bytes);
            ex.close();
        });
        api.start();
        Path dir = Files.createTempDirectory("pulsebus-polling-check");
        Path file = dir.resolve("pulsebus.toml");
        Files.writeString(file, "[storage]\ndata_dir = \"" + dir.resolve("data").toString().replace("\\", "\\\\")
                + "\"\n[adapters.telegram]\ntoken = \"" + TOKEN + "\"\napi_url = \"http://127.0.0.1:"
                + api.getAddress().getPort() + "\"\n");
        try (PulseBus bot = PollingBotExample.start(file)) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (sent.isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            if (sent.isEmpty() || !sent.get(0).contains("\"text\":\"hi\"")) {
                throw new AssertionError("the bot did not answer /echo hi: " + sent);
            }
            System.out.println("echoed: hi");
        }
        System.out.println("closed in order");
        api.stop(0);
    }
}
