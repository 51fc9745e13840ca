package dev.pulsebus.server;

import dev.pulsebus.netty.WriteLimit;
import dev.pulsebus.cluster.ClusterSettings;
import dev.pulsebus.config.Config;
import dev.pulsebus.config.ConfigException;
import dev.pulsebus.config.ConfigSnapshot;
import dev.pulsebus.config.Secret;
import java.nio.file.Path;
import dev.pulsebus.config.Section;
import dev.pulsebus.platform.PlatformProvider;
import dev.pulsebus.platform.PlatformSection;
import java.util.ArrayList;
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
        Path modulesDir, Map<String, Map<String, String>> modules, List<PlatformSection<?>> platforms,
        ClusterSettings cluster, @Nullable Path file, int moduleLoadTimeoutMs,
        int busStallMs) {

    /** This configuration with its modules folder at {@code dir} (no setting names it: it is {@code modules}). */
    ServerConfig withModulesDir(Path dir) {
        return new ServerConfig(host, port, token, maxBodyBytes, maxHeaderBytes, maxConnections, requestTimeoutMs,
                maxPendingMessages, maxPollTimeoutMs, shutdownTimeoutMs, adminToken, allowedHosts, maxConnectionsPerClient,
                maxPendingWriteBytes, instance, metricsEnabled, dataDir, jdbcUrl,
                username, password, synchronous, cacheSize, keepPerChat, maxAgeDays, slowHandlerMs, dir, modules, platforms,
                cluster, file, moduleLoadTimeoutMs, busStallMs);
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
    /** The platforms on the class path, by their sections' names ({@code [adapters.<name>]}). */
    private static Map<String, PlatformProvider<?>> platformProviders() {
        return PlatformSection.installed(ServerConfig.class.getClassLoader());
    }

    /** The settings of the platform sections configured whose settings are of {@code type}, in their sections' order. */
    public <S extends dev.pulsebus.platform.PlatformSettings> List<S> platformSettings(Class<S> type) {
        return platforms.stream().map(PlatformSection::settings).filter(type::isInstance).map(type::cast).toList();
    }

    /** The platform section {@code name} ({@code onebot11}) read, or null when none is configured. */
    public @Nullable PlatformSection<?> platform(String name) {
        for (PlatformSection<?> p : platforms) {
            if (p.provider().name().equals(name)) {
                return p;
            }
        }
        return null;
    }
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
        List<String> errors = new ArrayList<>();
        Map<String, PlatformProvider<?>> providers = platformProviders();
        for (String name : new TreeSet<>(env.keySet())) {
            String key = Config.keyOf(name);
            if (key != null && key.startsWith("adapters.")) {
                String rest = key.substring("adapters.".length());
                int dot = rest.indexOf('.');
                String adapter = dot < 0 ? "" : rest.substring(0, dot);
                PlatformProvider<?> provider = providers.get(adapter);
                Set<String> keys = provider == null ? Set.of() : provider.keys();
                if (!keys.contains(rest.substring(dot + 1))) {
                    errors.add("environment variable " + name + " names no setting (" + key + ")");
                }
            } else if (key != null && !key.startsWith("modules.")) {
                int dot = key.indexOf('.');
                Set<String> keys = dot < 0 ? null : KNOWN.get(key.substring(0, dot));
                if (keys == null || !keys.contains(key.substring(dot + 1))) {
                    errors.add("environment variable " + name + " names no setting (" + key + ")");
                }
            }
        }
        try (Config config = Config.builder(file).optional(optional).env(env).watch(false).build()) {
            return from(config.snapshot(), file == null ? "defaults" : file.toString(), file, errors);
        }
    }

    /**
     * The settings {@code snapshot} holds, checked: the same check at start and on each edit while running.
     *
     * @param source what to name in an error when the snapshot does not know where a value comes from
     * @throws ConfigException listing every error at once, each naming where its value comes from (the
     *     file and line, or the environment variable)
     */
    static ServerConfig from(ConfigSnapshot snapshot, String source, @Nullable Path file) {
        return from(snapshot, source, file, new ArrayList<>());
    }

    private static ServerConfig from(ConfigSnapshot snapshot, String source, @Nullable Path file, List<String> errors) {
        try {
            return read(snapshot, source, file, errors);
        } catch (ConfigException e) {
            errors.add(e.getMessage());
        }
        throw new ConfigException(errors.size() == 1 ? errors.get(0)
                : errors.size() + " configuration errors:\n  " + String.join("\n  ", errors));
    }

    /** Where {@code key}'s value comes from, for an error: its file and line, its variable, else {@code source}. */
    private static String where(ConfigSnapshot snapshot, String key, String source) {
        String o = snapshot.origin(key);
        return o != null ? o : source;
    }

    /** Adds {@code where + message}, unless {@code load} has already said that this variable names no setting. */
    private static void unknown(List<String> errors, String where, String message) {
        if (errors.stream().noneMatch(e -> e.startsWith(where + " names no setting"))) {
            errors.add(where + message);
        }
    }

    /** Reads every setting, adding each error to {@code errors}; throws them all at the end. */
    private static ServerConfig read(ConfigSnapshot snapshot, String source, @Nullable Path file, List<String> errors) {
        Map<String, Map<String, String>> modules = new LinkedHashMap<>();
        Map<String, PlatformProvider<?>> providers = platformProviders();
        Set<String> adapters = new java.util.TreeSet<>();
        for (String key : new TreeSet<>(snapshot.asMap().keySet())) {
            int dot = key.indexOf('.');
            String section = dot < 0 ? key : key.substring(0, dot);
            Set<String> keys = KNOWN.get(section);
            if (keys == null || dot < 0) {
                unknown(errors, where(snapshot, key, source), ": unknown section [" + section + "]; known: "
                        + String.join(", ", KNOWN.keySet().stream().sorted().toList()));
                continue;
            }
            String rest = key.substring(dot + 1);
            if (section.equals("modules")) {
                int cut = rest.indexOf('.');
                if (cut > 0) {
                    modules.computeIfAbsent(rest.substring(0, cut), m -> new LinkedHashMap<>())
                            .put(rest.substring(cut + 1), snapshot.getString(key, ""));
                } else if (!keys.contains(rest)) {
                    unknown(errors, where(snapshot, key, source), ": unknown setting " + key + "; known in [modules]: "
                            + String.join(", ", keys.stream().sorted().toList())
                            + ", and a module's own settings go in [modules.<id>]");
                }
            } else if (section.equals("adapters")) {
                int cut = rest.indexOf('.');
                String adapter = cut < 0 ? rest : rest.substring(0, cut);
                if (!providers.containsKey(adapter) || cut < 0) {
                    unknown(errors, where(snapshot, key, source), ": unknown section [adapters." + adapter
                            + "]; known: " + (providers.isEmpty() ? "none (no platform is on the class path)"
                            : String.join(", ", providers.keySet().stream().map(n -> "adapters." + n).toList())));
                    continue;
                }
                adapters.add(adapter); // read by its provider below
            } else if (!keys.contains(rest)) {
                unknown(errors, where(snapshot, key, source), ": unknown setting " + key + "; known in [" + section + "]: "
                        + String.join(", ", keys.stream().sorted().toList()));
            }
        }
        Reader r = new Reader(snapshot, source, errors);
        Map<String, String> clusterValues = new LinkedHashMap<>();
        for (String k : ClusterSettings.KEYS) {
            Object v = snapshot.asMap().get("cluster." + k);
            if (v != null) {
                clusterValues.put(k, v.toString());
            }
        }
        String clusterSource = where(snapshot, "cluster", source);
        ClusterSettings cluster = r.check(() -> ClusterSettings.read(clusterValues, clusterSource),
                () -> ClusterSettings.read(Map.of(), clusterSource));
        String jdbcUrl = r.text("storage", "jdbc_url", "");
        r.check(() -> {
            cluster.checkSharedStorage(jdbcUrl, clusterSource);
            return cluster;
        }, () -> cluster);
        String host = r.text("server", "host", "127.0.0.1");
        PlatformProvider.Deployment deployment = new PlatformProvider.Deployment(cluster.enabled(), host);
        List<PlatformSection<?>> platforms = new ArrayList<>();
        for (String name : adapters) { // known: checked above
            PlatformProvider<?> provider = java.util.Objects.requireNonNull(providers.get(name));
            PlatformSection<?> p = r.check(() -> PlatformSection.read(provider,
                    Section.of(snapshot, "adapters." + name, provider.keys(), source), deployment), () -> null);
            if (p != null) {
                platforms.add(p);
            }
        }
        ServerConfig built = new ServerConfig(
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
                List.copyOf(platforms), cluster, file,
                r.integer("modules", "load_timeout_ms", 10_000, 1, 3_600_000),
                r.integer("bus", "stall_ms", 10_000, 0, 3_600_000));
        if (!errors.isEmpty()) {
            throw new ConfigException(errors.remove(errors.size() - 1)); // from() lists them all
        }
        return built;
    }

    /** This config with the command line's overrides. */
    ServerConfig with(@Nullable Integer port, @Nullable Path dataDir) {
        return new ServerConfig(host, port != null ? port : this.port, token, maxBodyBytes, maxHeaderBytes,
                maxConnections, requestTimeoutMs, maxPendingMessages, maxPollTimeoutMs, shutdownTimeoutMs, adminToken,
                allowedHosts, maxConnectionsPerClient, maxPendingWriteBytes, instance, metricsEnabled,
                dataDir != null ? dataDir : this.dataDir, jdbcUrl, username, password, synchronous, cacheSize,
                keepPerChat, maxAgeDays, slowHandlerMs, modulesDir, modules, platforms, cluster, file,
                moduleLoadTimeoutMs, busStallMs);
    }

    /**
     * Typed reads of one setting with its default and range; a wrong value adds an error naming the setting
     * and where it comes from, and reads as the default so that the other settings are checked too.
     */
    private record Reader(ConfigSnapshot snapshot, String source, List<String> errors) {
        /** {@code read}'s value, or {@code fallback}'s after adding the error {@code read} threw. */
        <T> T check(java.util.function.Supplier<T> read, java.util.function.Supplier<T> fallback) {
            try {
                return read.get();
            } catch (ConfigException e) {
                errors.add(e.getMessage());
                return fallback.get();
            }
        }

        private String where(String section, String key) {
            return ServerConfig.where(snapshot, section + "." + key, source);
        }

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
                    errors.add(bad(section, key, "an integer", v));
                    return dflt;
                }
            }
            if (n < min || n > max) {
                errors.add(where(section, key) + ": " + section + "." + key + " must be between " + min + " and "
                        + max + ", was " + n);
                return dflt;
            }
            return (int) n;
        }

        /** A list of host names: a TOML array of strings, or (from the environment) names separated by commas. */
        List<String> hosts(String section, String key) {
            try {
                return Section.strings(text(section, key, "")).stream()
                        .map(h -> h.toLowerCase(java.util.Locale.ROOT)).toList();
            } catch (IllegalArgumentException e) {
                errors.add(where(section, key) + ": " + section + "." + key + " " + e.getMessage());
                return List.of();
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
            errors.add(bad(section, key, "true or false", v));
            return dflt;
        }

        private String bad(String section, String key, String wanted, Object v) {
            return where(section, key) + ": " + section + "." + key + " must be " + wanted + ", was "
                    + (v instanceof String ? "\"" + v + "\"" : v);
        }
    }
}
