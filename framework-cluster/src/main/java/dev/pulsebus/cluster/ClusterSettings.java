package dev.pulsebus.cluster;

import dev.pulsebus.config.ConfigException;
import dev.pulsebus.config.Section;
import java.net.URI;
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
     * Reads the section's {@code values} (keys checked by the caller against {@link #KEYS}), each error naming
     * {@code source}.
     *
     * @throws ConfigException naming the setting and {@code source} when a value is wrong
     */
    public static ClusterSettings read(Map<String, String> values, String source) {
        return read(Section.of("cluster", values, Map.of(), KEYS, source));
    }

    /**
     * Reads {@code [cluster]}: an error names the setting and where it is set.
     *
     * @throws ConfigException naming the setting when a value is wrong
     */
    public static ClusterSettings read(Section s) {
        boolean enabled = s.bool("enabled", false);
        int partitions = s.integer("partitions", DEFAULT_PARTITIONS, 1, MAX_PARTITIONS);
        URI broker = s.url("broker", s.text("broker", DEFAULT_BROKER).trim(), Set.of("amqp", "amqps", "nats"),
                "needs amqp://user:password@host:port", "");
        if (String.valueOf(broker.getScheme()).toLowerCase(Locale.ROOT).equals("nats")) {
            throw s.error("broker", "broker " + broker + ": PulseBus clusters on RabbitMQ only "
                    + "(amqp://user:password@host:5672); NATS is not supported (docs/CLUSTER.md says why)");
        }
        URI redis = s.url("redis", s.text("redis", DEFAULT_REDIS).trim(), Set.of("redis", "rediss"),
                "needs redis://host:port", "");
        if (enabled) {
            requireEngines(s.where("enabled"));
        }
        return new ClusterSettings(enabled, s.text("instance", "").trim(), broker, partitions, redis);
    }

    public static Builder builder() {
        return disabled().toBuilder();
    }

    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Builds {@link ClusterSettings}, from the defaults (off) or from a copy. Not thread-safe. */
    public static final class Builder {
        private boolean enabled;
        private String instance;
        private URI broker;
        private int partitions;
        private URI redis;

        private Builder(ClusterSettings s) {
            this.enabled = s.enabled;
            this.instance = s.instance;
            this.broker = s.broker;
            this.partitions = s.partitions;
            this.redis = s.redis;
        }

        public Builder enabled(boolean enabled) {
            this.enabled = enabled;
            return this;
        }

        public Builder instance(String instance) {
            this.instance = instance;
            return this;
        }

        public Builder broker(URI broker) {
            this.broker = broker;
            return this;
        }

        public Builder partitions(int partitions) {
            this.partitions = partitions;
            return this;
        }

        public Builder redis(URI redis) {
            this.redis = redis;
            return this;
        }

        public ClusterSettings build() {
            return new ClusterSettings(enabled, instance, broker, partitions, redis);
        }
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

    @Override
    public String toString() { // the broker URL may hold a password
        return "ClusterSettings[enabled=" + enabled + ", instance=" + instance + ", broker=" + broker.getHost() + ":"
                + broker.getPort() + ", partitions=" + partitions + ", redis=" + redis.getHost() + ":" + redis.getPort()
                + "]";
    }
}
