package dev.pulsebus.cluster;

import dev.pulsebus.config.ConfigException;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * The {@code [cluster]} section: whether this instance is one of several, its name, the RabbitMQ broker that
 * carries events, how many partitions chats are spread over, and the Redis server of the shared controls.
 * Values are read as the text they are. Every instance of one cluster must have the same {@code partitions}.
 *
 * @param enabled    off: the instance is alone, nothing here is used
 * @param instance   this instance's name in the cluster; empty: host name and port
 * @param broker     {@code amqp://user:password@host:port[/vhost]}
 * @param partitions queues chats are hashed over (1 to 1024); each is handled by one instance at a time
 * @param redis      {@code redis://host:port[/db]}
 */
public record ClusterSettings(boolean enabled, String instance, URI broker, int partitions, URI redis) {

    /** The keys the section may hold. */
    public static final Set<String> KEYS = Set.of("enabled", "instance", "broker", "partitions", "redis");
    public static final String DEFAULT_BROKER = "amqp://guest:guest@127.0.0.1:5672";
    public static final String DEFAULT_REDIS = "redis://127.0.0.1:6379";
    public static final int DEFAULT_PARTITIONS = 64;
    public static final int MAX_PARTITIONS = 1024;

    public ClusterSettings {
        Objects.requireNonNull(instance, "instance");
        Objects.requireNonNull(broker, "broker");
        Objects.requireNonNull(redis, "redis");
        if (partitions < 1 || partitions > MAX_PARTITIONS) {
            throw new IllegalArgumentException("partitions must be between 1 and " + MAX_PARTITIONS + ", was "
                    + partitions);
        }
    }

    /** Off, with the defaults. */
    public static ClusterSettings disabled() {
        return new ClusterSettings(false, "", URI.create(DEFAULT_BROKER), DEFAULT_PARTITIONS, URI.create(DEFAULT_REDIS));
    }

    /** These settings, on, with {@code instance} as this instance's name. */
    public ClusterSettings enabledAs(String name) {
        return new ClusterSettings(true, name, broker, partitions, redis);
    }

    /** These settings with {@code n} partitions. */
    public ClusterSettings withPartitions(int n) {
        return new ClusterSettings(enabled, instance, broker, n, redis);
    }

    /**
     * Reads the section's {@code values} (keys checked by the caller against {@link #KEYS}).
     *
     * @throws ConfigException naming the setting and {@code source} when a value is wrong
     */
    public static ClusterSettings read(Map<String, String> values, String source) {
        String enabled = values.getOrDefault("enabled", "false").trim().toLowerCase(Locale.ROOT);
        if (!enabled.equals("true") && !enabled.equals("false")) {
            throw new ConfigException(source + ": cluster.enabled must be true or false, was \"" + enabled + "\"");
        }
        String partitionsText = values.getOrDefault("partitions", Integer.toString(DEFAULT_PARTITIONS)).trim();
        int partitions;
        try {
            partitions = Integer.parseInt(partitionsText);
        } catch (NumberFormatException e) {
            throw new ConfigException(source + ": cluster.partitions must be an integer, was \"" + partitionsText + "\"");
        }
        if (partitions < 1 || partitions > MAX_PARTITIONS) {
            throw new ConfigException(source + ": cluster.partitions must be between 1 and " + MAX_PARTITIONS
                    + ", was " + partitions);
        }
        URI broker = uri(values.getOrDefault("broker", DEFAULT_BROKER), "broker", source);
        String scheme = String.valueOf(broker.getScheme()).toLowerCase(Locale.ROOT);
        if (scheme.equals("nats")) {
            throw new ConfigException(source + ": cluster.broker " + broker + ": PulseBus clusters on RabbitMQ only "
                    + "(amqp://user:password@host:5672); NATS is not supported (docs/CLUSTER.md says why)");
        }
        if (!scheme.equals("amqp") && !scheme.equals("amqps")) {
            throw new ConfigException(source + ": cluster.broker must be an amqp:// URL, was \"" + broker + "\"");
        }
        URI redis = uri(values.getOrDefault("redis", DEFAULT_REDIS), "redis", source);
        String redisScheme = String.valueOf(redis.getScheme()).toLowerCase(Locale.ROOT);
        if (!redisScheme.equals("redis") && !redisScheme.equals("rediss")) {
            throw new ConfigException(source + ": cluster.redis must be a redis:// URL, was \"" + redis + "\"");
        }
        if (enabled.equals("true")) {
            requireEngines(source);
        }
        return new ClusterSettings(enabled.equals("true"), values.getOrDefault("instance", "").trim(), broker,
                partitions, redis);
    }

    /** The clients of the cluster's engines, optional dependencies of this module: by artifact, a class of each. */
    private static final Map<String, String> ENGINE_CLIENTS = Map.of(
            "com.rabbitmq:amqp-client", "com.rabbitmq.client.ConnectionFactory",
            "io.lettuce:lettuce-core", "io.lettuce.core.RedisClient");

    /**
     * Checks that the engines' clients are on the class path: they are optional dependencies, so that an
     * application embedding one instance does not carry them (the server jar has them).
     */
    private static void requireEngines(String source) {
        List<String> missing = new ArrayList<>();
        for (Map.Entry<String, String> e : new TreeMap<>(ENGINE_CLIENTS).entrySet()) {
            try {
                Class.forName(e.getValue(), false, ClusterSettings.class.getClassLoader());
            } catch (ClassNotFoundException | LinkageError absent) {
                missing.add(e.getKey());
            }
        }
        if (!missing.isEmpty()) {
            throw new ConfigException(source + ": cluster.enabled needs " + String.join(" and ", missing)
                    + " on the class path: add them as dependencies of your application (docs/CLUSTER.md, "
                    + "\"Embedding\"); the server jar has them");
        }
    }

    /**
     * Checks that a cluster can share {@code jdbcUrl}: PostgreSQL or MariaDB/MySQL, never an SQLite file
     * (or the default, which is one).
     *
     * @throws ConfigException when it cannot
     */
    public void checkSharedStorage(String jdbcUrl, String source) {
        if (!enabled) {
            return;
        }
        String url = jdbcUrl.toLowerCase(Locale.ROOT);
        if (!(url.startsWith("jdbc:postgresql:") || url.startsWith("jdbc:mariadb:") || url.startsWith("jdbc:mysql:"))) {
            throw new ConfigException(source + ": cluster.enabled needs storage.jdbc_url on PostgreSQL or MariaDB "
                    + "(jdbc:postgresql://... or jdbc:mariadb://...), was " + (jdbcUrl.isEmpty()
                    ? "the default SQLite file" : "\"" + jdbcUrl + "\"") + ": an SQLite file cannot be shared by "
                    + "several instances");
        }
    }

    private static URI uri(String text, String key, String source) {
        try {
            URI u = new URI(text.trim());
            if (u.getScheme() == null || u.getHost() == null) {
                throw new URISyntaxException(text, "no scheme or host");
            }
            return u;
        } catch (URISyntaxException e) {
            throw new ConfigException(source + ": cluster." + key + " is not a URL: \"" + text + "\"");
        }
    }

    @Override
    public String toString() { // the broker URL may hold a password
        return "ClusterSettings[enabled=" + enabled + ", instance=" + instance + ", broker=" + broker.getHost() + ":"
                + broker.getPort() + ", partitions=" + partitions + ", redis=" + redis.getHost() + ":" + redis.getPort()
                + "]";
    }
}
