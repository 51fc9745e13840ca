package com.example;

import dev.pulsebus.server.PulseBusServer;
import dev.pulsebus.server.ServerConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;

/** The generated module's jar, dropped into modules/, is loaded by the server and its command answers in a room. */
public final class ModuleCheck {

    public static void main(String[] args) throws Exception {
        Path jar = Path.of(args[0]);
        Path modules = Files.createDirectories(Path.of("modules"));
        Files.copy(jar, modules.resolve(jar.getFileName()), StandardCopyOption.REPLACE_EXISTING);
        try {
            Class.forName("com.example.dice.DiceModule");
            throw new AssertionError("the module is on the server's class path: the check would not load its jar");
        } catch (ClassNotFoundException expected) {
            // loaded from modules/ only
        }
        Path toml = Path.of("pulsebus.toml").toAbsolutePath();
        Files.writeString(toml, "[server]\nport = 0\n[storage]\ndata_dir = \""
                + Path.of("data").toAbsolutePath().toString().replace("\\", "\\\\") + "\"\n"
                + "[modules.dice]\ngreeting = \"Howdy\"\n");
        HttpClient client = HttpClient.newHttpClient();
        try (PulseBusServer server = PulseBusServer.start(ServerConfig.load(toml, false, Map.of()))) {
            HttpResponse<String> said = client.send(HttpRequest.newBuilder(URI.create(server.url()
                    + "/api/rooms/lobby/messages")).POST(HttpRequest.BodyPublishers.ofString(
                    "{\"user\": \"ann\", \"text\": \"/dice\"}")).build(), HttpResponse.BodyHandlers.ofString());
            System.out.println("said " + said.statusCode());
            HttpResponse<String> poll = client.send(HttpRequest.newBuilder(URI.create(server.url()
                    + "/api/rooms/lobby/poll?after=1&timeout_ms=10000")).build(), HttpResponse.BodyHandlers.ofString());
            System.out.println("poll " + poll.statusCode() + " " + poll.body());
            if (!poll.body().contains("Howdy, ann!")) {
                throw new AssertionError("the module's command did not answer: " + poll.body());
            }
            System.out.println("the dice module answered from modules/");
        }
    }
}
