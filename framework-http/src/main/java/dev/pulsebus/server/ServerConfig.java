package dev.pulsebus.server;

import dev.pulsebus.adapter.SectionReader;
import dev.pulsebus.adapter.WriteLimit;
import dev.pulsebus.cluster.ClusterSettings;
import dev.pulsebus.config.Config;
import dev.pulsebus.config.ConfigException;
import dev.pulsebus.config.ConfigSnapshot;
import dev.pulsebus.config.Secret;
import java.nio.file.Path;
import dev.pulsebus.onebot.OneBotSettings;
import dev.pulsebus.telegram.TelegramSettings;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * The server's settings: built-in defaults, then {@code config/pulsebus.toml}, then environment
 * variables ({@code PULSEBUS_SERVER_PORT} sets {@code server.port}), then command-line flags. Unknown
 * settings and bad values are errors that name the setting (and the file's line for a syntax error).
 * Tokens and passwords are {@link Secret}s: the record prints them masked.
 */
public record ServerConfig(
        String host, int port, Secret token, int maxBodyBytes, int maxHeaderBytes, int maxConnections,
        int requestTimeoutMs, int maxPendingMessages, int maxPollTimeoutMs, int shutdownTimeoutMs,
        Secret adminToken, List<String> allowedHosts, int maxConnectionsPerClient, int maxPendingWriteBytes,
        String instance, boolean metricsEnabled,
        Path dataDir, String jdbcUrl, String username, Secret password, String synchronous, long cacheSize,
        int keepPerChat, int maxAgeDays, int slowHandlerMs,
        Path modulesDir, Map<String, Map<String, String>> modules, List<OneBotSettings> onebot,
        @Nullable TelegramSettings telegram, ClusterSettings cluster, @Nullable Path file, int moduleLoadTimeoutMs,
        int busStallMs) {

    /** This configuration with its modules folder at {@code dir} (no setting names it: it is {@code modules}). */
    ServerConfig withModulesDir(Path dir) {
        return new ServerConfig(host, port, token, maxBodyBytes, maxHeaderBytes, maxConnections, requestTimeoutMs,
                maxPendingMessages, maxPollTimeoutMs, shutdownTimeoutMs, adminToken, allowedHosts, maxConnectionsPerClient,
                maxPendingWriteBytes, instance, metricsEnabled, dataDir, jdbcUrl,
                username, password, synchronous, cacheSize, keepPerChat, maxAgeDays, slowHandlerMs, dir, modules, onebot,
                telegram, cluster, file, moduleLoadTimeoutMs, busStallMs);
    }

    /** {@code server.max_connections_per_client} when not set: a few browsers' worth, well under the global cap. */
    static final int DEFAULT_PER_CLIENT = 256;

    private static final Map<String, Set<String>> KNOWN = Map.of(
            "server", Set.of("host", "port", "token", "max_body_bytes", "max_header_bytes", "max_connections",
                    "request_timeout_ms", "max_pending_messages", "max_poll_timeout_ms", "shutdown_timeout_ms",
                    "admin_token", "allowed_hosts", "max_connections_per_client", "max_pending_write_bytes"),
            "bot", Set.of("instance"),
            "metrics", Set.of("enabled"),
            "storage", Set.of("data_dir", "jdbc_url", "username", "password", "synchronous", "cache_size"),
            "transcript", Set.of("keep_per_chat", "max_age_days"),
            "bus", Set.of("slow_handler_ms", "stall_ms"),
            "cluster", ClusterSettings.KEYS,
            "modules", Set.of("load_timeout_ms"), // and each module's own section, [modules.<id>]
            "adapters", Set.of());
    /** The adapters' sections, {@code [adapters.onebot11]} and {@code [adapters.onebot12]}, by OneBot version. */
    private static final Map<String, Integer> ADAPTERS = Map.of("onebot11", 11, "onebot12", 12);
    private static final String TELEGRAM = "telegram";
    /** Defaults only (no file). */
    public static ServerConfig defaults() {
        return from(Config.empty().snapshot(), "defaults", null);
    }

    /**
     * Reads {@code file} (absent and {@code optional}: defaults) and applies {@code env} overrides, through
     * the same {@link Config} the bot uses.
     *
     * @throws ConfigException naming the file, line and setting that is wrong
     */
    public static ServerConfig load(@Nullable Path file, boolean optional, Map<String, String> env) {
        for (String name : env.keySet()) {
            String key = Config.keyOf(name);
            if (key != null && key.startsWith("adapters.")) {
                String rest = key.substring("adapters.".length());
                int dot = rest.indexOf('.');
                String adapter = dot < 0 ? "" : rest.substring(0, dot);
                Set<String> keys = adapter.equals(TELEGRAM) ? TelegramSettings.KEYS
                        : ADAPTERS.containsKey(adapter) ? OneBotSettings.KEYS : Set.of();
                if (!keys.contains(rest.substring(dot + 1))) {
                    throw new ConfigException("environment variable " + name + " names no setting (" + key + ")");
                }
            } else if (key != null && !key.startsWith("modules.")) {
                int dot = key.indexOf('.');
                Set<String> keys = dot < 0 ? null : KNOWN.get(key.substring(0, dot));
                if (keys == null || !keys.contains(key.substring(dot + 1))) {
                    throw new ConfigException("environment variable " + name + " names no setting (" + key + ")");
                }
            }
        }
        try (Config config = Config.builder(file).optional(optional).env(env).watch(false).build()) {
            return from(config.snapshot(), file == null ? "defaults" : file.toString(), file);
        }
    }

    static ServerConfig from(ConfigSnapshot snapshot, String source, @Nullable Path file) {
        Map<String, Map<String, String>> modules = new LinkedHashMap<>();
        Map<String, Map<String, String>> adapters = new LinkedHashMap<>();
        for (String key : new TreeSet<>(snapshot.asMap().keySet())) {
            int dot = key.indexOf('.');
            String section = dot < 0 ? key : key.substring(0, dot);
            Set<String> keys = KNOWN.get(section);
            if (keys == null || dot < 0) {
                throw new ConfigException(source + ": unknown section [" + section + "]; known: "
                        + String.join(", ", KNOWN.keySet().stream().sorted().toList()));
            }
            String rest = key.substring(dot + 1);
            if (section.equals("modules")) {
                int cut = rest.indexOf('.');
                if (cut > 0) {
                    modules.computeIfAbsent(rest.substring(0, cut), m -> new LinkedHashMap<>())
                            .put(rest.substring(cut + 1), snapshot.getString(key, ""));
                } else if (!keys.contains(rest)) {
                    throw new ConfigException(source + ": unknown setting " + key + "; known in [modules]: "
                            + String.join(", ", keys.stream().sorted().toList())
                            + ", and a module's own settings go in [modules.<id>]");
                }
            } else if (section.equals("adapters")) {
                int cut = rest.indexOf('.');
                String adapter = cut < 0 ? rest : rest.substring(0, cut);
                if (!(ADAPTERS.containsKey(adapter) || adapter.equals(TELEGRAM)) || cut < 0) {
                    throw new ConfigException(source + ": unknown section [adapters." + adapter
                            + "]; known: adapters.onebot11, adapters.onebot12, adapters.telegram");
                }
                // text as it is: a token 0123 stays 0123 (an integer setting is parsed where it is read)
                adapters.computeIfAbsent(adapter, a -> new LinkedHashMap<>())
                        .put(rest.substring(cut + 1), snapshot.getString(key, ""));
            } else if (!keys.contains(rest)) {
                throw new ConfigException(source + ": unknown setting " + key + "; known in [" + section + "]: "
                        + String.join(", ", keys.stream().sorted().toList()));
            }
        }
        Reader r = new Reader(snapshot, source);
        Map<String, String> clusterValues = new LinkedHashMap<>();
        for (String k : ClusterSettings.KEYS) {
            Object v = snapshot.asMap().get("cluster." + k);
            if (v != null) {
                clusterValues.put(k, v.toString());
            }
        }
        ClusterSettings cluster = ClusterSettings.read(clusterValues, source);
        String jdbcUrl = r.text("storage", "jdbc_url", "");
        cluster.checkSharedStorage(jdbcUrl, source);
        List<OneBotSettings> onebot = adapters.entrySet().stream().filter(e -> !e.getKey().equals(TELEGRAM))
                .map(e -> OneBotSettings.read(ADAPTERS.getOrDefault(e.getKey(), 11), e.getValue(), source))
                .toList(); // keys checked above
        TelegramSettings telegram = adapters.containsKey(TELEGRAM) ? TelegramSettings.read(adapters.get(TELEGRAM), source)
                : null;
        checkClusterPlatforms(cluster, onebot, telegram, source);
        String host = r.text("server", "host", "127.0.0.1");
        OneBotSettings.checkIntake(onebot, host, source);
        return new ServerConfig(
                host,
                r.integer("server", "port", 8080, 0, 65535),
                Secret.of(r.text("server", "token", "")),
                r.integer("server", "max_body_bytes", 64 * 1024, 256, 64 * 1024 * 1024),
                r.integer("server", "max_header_bytes", 8 * 1024, 1024, 1024 * 1024),
                r.integer("server", "max_connections", 1024, 1, 1_000_000),
                r.integer("server", "request_timeout_ms", 10_000, 100, 3_600_000),
                r.integer("server", "max_pending_messages", 10_000, 1, 10_000_000),
                r.integer("server", "max_poll_timeout_ms", 120_000, 0, 3_600_000),
                r.integer("server", "shutdown_timeout_ms", 10_000, 100, 3_600_000),
                Secret.of(r.text("server", "admin_token", "")),
                r.hosts("server", "allowed_hosts"),
                r.integer("server", "max_connections_per_client", DEFAULT_PER_CLIENT, 1, 1_000_000),
                r.integer("server", "max_pending_write_bytes", WriteLimit.DEFAULT_MAX_PENDING, 4096, 1 << 30),
                r.text("bot", "instance", ""),
                r.bool("metrics", "enabled", true),
                Path.of(r.text("storage", "data_dir", "data")),
                jdbcUrl,
                r.text("storage", "username", ""),
                Secret.of(r.text("storage", "password", "")),
                r.text("storage", "synchronous", "NORMAL"),
                r.integer("storage", "cache_size", 10_000, 0, 100_000_000),
                r.integer("transcript", "keep_per_chat", 10_000, 1, 100_000_000),
                r.integer("transcript", "max_age_days", 30, 1, 36_500),
                r.integer("bus", "slow_handler_ms", 1000, 0, 3_600_000),
                Path.of("modules"),
                modules.entrySet().stream().collect(java.util.stream.Collectors.toUnmodifiableMap(
                        Map.Entry::getKey, e -> Map.copyOf(e.getValue()))),
                onebot, telegram, cluster, file,
                r.integer("modules", "load_timeout_ms", 10_000, 1, 3_600_000),
                r.integer("bus", "stall_ms", 10_000, 0, 3_600_000));
    }

    /**
     * In a cluster, a platform's events are handled by whichever instance holds their chat, and its replies leave
     * from there: refuses the modes where only the receiving instance could answer, or where several instances
     * would fight over one bot.
     */
    private static void checkClusterPlatforms(ClusterSettings cluster, List<OneBotSettings> onebot,
                                              @Nullable TelegramSettings telegram, String source) {
        if (!cluster.enabled()) {
            return;
        }
        if (telegram != null && telegram.enabled() && telegram.mode() == TelegramSettings.Mode.POLLING) {
            throw new ConfigException(source + ": cluster.enabled with adapters.telegram mode = \"polling\": Telegram "
                    + "answers one getUpdates per bot at a time, so several instances would take turns failing; use "
                    + "mode = \"webhook\" with webhook_url pointing at your load balancer (see docs/CLUSTER.md)");
        }
        if (telegram != null && telegram.enabled() && telegram.webhookSecret().isEmpty()) {
            throw new ConfigException(source + ": cluster.enabled with adapters.telegram and no webhook_secret: each "
                    + "instance would draw a secret of its own and refuse the posts made with another's; set "
                    + "webhook_secret (1 to 256 of A-Z a-z 0-9 _ -) to one value for all instances");
        }
        for (OneBotSettings o : onebot) {
            if (o.enabled() && o.mode() == dev.pulsebus.onebot.Mode.HTTP && o.url().isEmpty()) {
                throw new ConfigException(source + ": cluster.enabled with adapters.onebot" + o.version()
                        + " mode = \"http\" needs url (the implementation's HTTP API): in a cluster the instance that "
                        + "handles an event is not the one that answers its POST, so replies cannot be quick operations");
            }
        }
    }

    /** This config with the command line's overrides. */
    ServerConfig with(@Nullable Integer port, @Nullable Path dataDir) {
        return new ServerConfig(host, port != null ? port : this.port, token, maxBodyBytes, maxHeaderBytes,
                maxConnections, requestTimeoutMs, maxPendingMessages, maxPollTimeoutMs, shutdownTimeoutMs, adminToken,
                allowedHosts, maxConnectionsPerClient, maxPendingWriteBytes, instance, metricsEnabled,
                dataDir != null ? dataDir : this.dataDir, jdbcUrl, username, password, synchronous, cacheSize,
                keepPerChat, maxAgeDays, slowHandlerMs, modulesDir, modules, onebot, telegram, cluster, file,
                moduleLoadTimeoutMs, busStallMs);
    }

    /** Typed reads of one setting with its default and range, naming the setting when it is wrong. */
    private record Reader(ConfigSnapshot snapshot, String source) {
        String text(String section, String key, String dflt) {
            Object v = snapshot.asMap().get(section + "." + key);
            return v == null ? dflt : v.toString();
        }

        int integer(String section, String key, int dflt, int min, int max) {
            Object v = snapshot.asMap().get(section + "." + key);
            if (v == null) {
                return dflt;
            }
            long n;
            if (v instanceof Long l) {
                n = l;
            } else {
                try {
                    n = Long.parseLong(v.toString().trim());
                } catch (NumberFormatException e) {
                    throw bad(section, key, "an integer", v);
                }
            }
            if (n < min || n > max) {
                throw new ConfigException(source + ": " + section + "." + key + " must be between " + min + " and "
                        + max + ", was " + n);
            }
            return (int) n;
        }

        /** A list of host names: a TOML array of strings, or (from the environment) names separated by commas. */
        List<String> hosts(String section, String key) {
            try {
                return SectionReader.strings(text(section, key, "")).stream()
                        .map(h -> h.toLowerCase(java.util.Locale.ROOT)).toList();
            } catch (IllegalArgumentException e) {
                throw new ConfigException(source + ": " + section + "." + key + " " + e.getMessage());
            }
        }

        boolean bool(String section, String key, boolean dflt) {
            Object v = snapshot.asMap().get(section + "." + key);
            if (v == null) {
                return dflt;
            }
            if (v instanceof Boolean b) {
                return b;
            }
            if (v instanceof String text && (text.trim().equalsIgnoreCase("true") || text.trim().equalsIgnoreCase("false"))) {
                return Boolean.parseBoolean(text.trim()); // an environment override is text
            }
            throw bad(section, key, "true or false", v);
        }

        private ConfigException bad(String section, String key, String wanted, Object v) {
            return new ConfigException(source + ": " + section + "." + key + " must be " + wanted + ", was "
                    + (v instanceof String ? "\"" + v + "\"" : v));
        }
    }
}
