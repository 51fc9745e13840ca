package com.example;

import dev.pulsebus.config.ConfigException;
import dev.pulsebus.server.PulseBusServer;
import dev.pulsebus.server.ServerConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * framework-http as a library: it brings no Logback and no cluster engine clients (a clustered configuration says
 * what to add), and its server starts and answers /health.
 */
public final class LibraryCheck {

    public static void main(String[] args) throws Exception {
        try {
            Class.forName("ch.qos.logback.classic.Logger");
            throw new AssertionError("framework-http brought Logback onto an embedder's class path");
        } catch (ClassNotFoundException expected) {
            System.out.println("no Logback on the class path");
        }
        for (String client : new String[] {"com.rabbitmq.client.ConnectionFactory", "io.lettuce.core.RedisClient"}) {
            try {
                Class.forName(client);
                throw new AssertionError("framework-http brought a cluster engine's client onto an embedder's class "
                        + "path: " + client);
            } catch (ClassNotFoundException expected) {
                // optional: only a clustered application adds them
            }
        }
        System.out.println("no cluster engine clients on the class path");
        Path dir = Files.createTempDirectory("pulsebus-library-check");
        Path clustered = dir.resolve("clustered.toml");
        Files.writeString(clustered, "[storage]\njdbc_url = \"jdbc:postgresql://127.0.0.1:5432/test\"\n"
                + "[cluster]\nenabled = true\n");
        try {
            ServerConfig.load(clustered, false, Map.of());
            throw new AssertionError("cluster.enabled was taken without the engines' clients");
        } catch (ConfigException e) {
            System.out.println("clustered without the clients: " + e.getMessage());
        }
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
