package dev.pulsebus.server;


import dev.pulsebus.cluster.Cluster;
import dev.pulsebus.testing.Listening;
import dev.pulsebus.testing.PostgresSchema;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Servers in this JVM as one cluster, for a test: one PostgreSQL schema, the local RabbitMQ and Redis under a
 * broker namespace and Redis prefix of its own ({@code pulsebus.cluster.namespace}, set while it is open).
 * Skips the calling test, saying why, when a server is absent. Closing stops the servers and removes what the
 * cluster left in the broker and the database.
 */
public final class TestCluster implements AutoCloseable {

    public static final int PARTITIONS = 8;
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private final PostgresSchema schema;
    private final String namespace;
    private final String previous;
    private final List<PulseBusServer> servers = new ArrayList<>();

    /** @param who the test, named in the line a skip prints */
    public TestCluster(String who) {
        Listening.require(who, "RabbitMQ", 5672);
        Listening.require(who, "Redis", 6379);
        this.schema = PostgresSchema.create(who);
        this.namespace = "pulsebus-" + who.toLowerCase(java.util.Locale.ROOT) + "-"
                + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
        this.previous = System.getProperty("pulsebus.cluster.namespace");
        System.setProperty("pulsebus.cluster.namespace", namespace);
    }

    /** Starts instance {@code name}, its data under {@code dir}, with {@code toml} after the cluster's sections. */
    public PulseBusServer start(Path dir, String name, String toml) throws Exception {
        return start(dir, name, toml, 5432);
    }

    /** {@link #start(Path, String, String)} reaching PostgreSQL through {@code databasePort} (a proxy's). */
    public PulseBusServer start(Path dir, String name, String toml, int databasePort) throws Exception {
        Path d = Files.createDirectories(dir.resolve(name));
        Path file = Files.writeString(d.resolve("pulsebus.toml"), """
                [server]
                port = 0
                [storage]
                data_dir = "%s"
                jdbc_url = "%s"
                [cluster]
                enabled = true
                instance = "%s"
                partitions = %d
                """.formatted(d.resolve("data").toString().replace("\\", "/"), schema.jdbcUrl(databasePort), name,
                PARTITIONS)
                + toml);
        PulseBusServer s = PulseBusServer.start(ServerConfig.load(file, false, Map.of()));
        servers.add(s);
        return s;
    }

    /** {@code pulsebus_cluster_events_handled_total} of {@code server}: events of its partitions it handled. */
    public static double eventsHandled(PulseBusServer server) throws Exception {
        return metric(server, "pulsebus_cluster_events_handled_total", "");
    }

    /** The sum of the series of {@code name} on {@code server}'s {@code /metrics} whose labels contain {@code labels}. */
    public static double metric(PulseBusServer server, String name, String labels) throws Exception {
        return metric(server.url(), name, labels);
    }

    /** {@link #metric(PulseBusServer, String, String)} of the server at {@code url} (a child process). */
    public static double metric(URI url, String name, String labels) throws Exception {
        String metrics = HTTP.send(HttpRequest.newBuilder(URI.create(url + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        Matcher m = Pattern.compile("(?m)^" + name + "(\\{[^}]*\\})? (\\S+)$").matcher(metrics);
        boolean any = false;
        double sum = 0;
        while (m.find()) {
            any = true;
            if (m.group(1) == null || m.group(1).contains(labels)) {
                sum += Double.parseDouble(m.group(2));
            }
        }
        if (!any) {
            throw new AssertionError("no " + name + " in /metrics");
        }
        return sum;
    }

    @Override
    public void close() throws Exception {
        try {
            for (PulseBusServer s : servers) {
                s.close();
            }
        } finally {
            if (previous == null) {
                System.clearProperty("pulsebus.cluster.namespace");
            } else {
                System.setProperty("pulsebus.cluster.namespace", previous);
            }
            Cluster.deleteFromBroker(ServerConfig.defaults().cluster().enabledAs("cleanup").withPartitions(PARTITIONS),
                    namespace);
            schema.close();
        }
    }
}
