package com.example;

import dev.pulsebus.server.PulseBusServer;
import dev.pulsebus.server.ServerConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/** framework-http as a library: it brings no Logback, and its server starts and answers /health. */
public final class LibraryCheck {

    public static void main(String[] args) throws Exception {
        try {
            Class.forName("ch.qos.logback.classic.Logger");
            throw new AssertionError("framework-http brought Logback onto an embedder's class path");
        } catch (ClassNotFoundException expected) {
            System.out.println("no Logback on the class path");
        }
        Path dir = Files.createTempDirectory("pulsebus-library-check");
        Path toml = dir.resolve("pulsebus.toml");
        Files.writeString(toml, "[server]\nport = 0\n[storage]\ndata_dir = \""
                + dir.resolve("data").toString().replace("\\", "\\\\") + "\"\n");
        try (PulseBusServer server = PulseBusServer.start(ServerConfig.load(toml, false, Map.of()))) {
            HttpResponse<String> health = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(URI.create(server.url() + "/health")).build(),
                    HttpResponse.BodyHandlers.ofString());
            System.out.println("health " + health.statusCode() + " " + health.body());
        }
    }
}
