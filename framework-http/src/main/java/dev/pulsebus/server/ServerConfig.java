package dev.pulsebus.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.toml.TomlMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The server's settings: built-in defaults, then {@code config/pulsebus.toml}, then environment
 * variables ({@code PULSEBUS_SERVER_PORT} sets {@code server.port}), then command-line flags. Unknown
 * settings and bad values are errors that name the setting (and the file's line for a syntax error).
 */
public record ServerConfig(
        String host, int port, String token, int maxBodyBytes, int maxHeaderBytes, int maxConnections,
        int requestTimeoutMs, int maxPendingMessages, int maxPollTimeoutMs,
        String instance, boolean metricsEnabled,
        Path dataDir, String jdbcUrl, String username, String password, String synchronous, long cacheSize,
        int keepPerChat, int maxAgeDays,
        Path modulesDir, Map<String, Map<String, String>> modules) {

    private static final Map<String, Set<String>> KNOWN = Map.of(
            "server", Set.of("host", "port", "token", "max_body_bytes", "max_header_bytes", "max_connections",
                    "request_timeout_ms", "max_pending_messages", "max_poll_timeout_ms"),
            "bot", Set.of("instance"),
            "metrics", Set.of("enabled"),
            "storage", Set.of("data_dir", "jdbc_url", "username", "password", "synchronous", "cache_size"),
            "transcript", Set.of("keep_per_chat", "max_age_days"),
            "modules", Set.of());

    /** Defaults only (no file). */
    public static ServerConfig defaults() {
        return from(JsonNodeFactory.instance.objectNode(), Map.of(), "defaults");
    }

    /**
     * Reads {@code file} (absent and {@code optional}: defaults) and applies {@code env} overrides.
     *
     * @throws ConfigException naming the file, line and setting that is wrong
     */
    public static ServerConfig load(@Nullable Path file, boolean optional, Map<String, String> env) {
        ObjectNode root = JsonNodeFactory.instance.objectNode();
        String source = "defaults";
        if (file != null) {
            try {
                String text = Files.readString(file);
                JsonNode parsed = new TomlMapper().readTree(text);
                if (parsed instanceof ObjectNode o) {
                    root = o;
                }
                source = file.toString();
            } catch (NoSuchFileException e) {
                if (!optional) {
                    throw new ConfigException("config file " + file + " does not exist");
                }
            } catch (JsonProcessingException e) {
                var loc = e.getLocation();
                throw new ConfigException(file + (loc == null ? "" : ": line " + loc.getLineNr() + ", column "
                        + loc.getColumnNr()) + ": " + e.getOriginalMessage(), e);
            } catch (IOException e) {
                throw new ConfigException("cannot read config file " + file + ": " + e.getMessage(), e);
            }
        }
        return from(root, env, source);
    }

    static ServerConfig from(ObjectNode root, Map<String, String> env, String source) {
        for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> section = it.next();
            Set<String> keys = KNOWN.get(section.getKey());
            if (keys == null || !section.getValue().isObject()) {
                throw new ConfigException(source + ": unknown section [" + section.getKey() + "]; known: "
                        + String.join(", ", KNOWN.keySet().stream().sorted().toList()));
            }
            if (section.getKey().equals("modules")) {
                continue;
            }
            for (Iterator<String> names = section.getValue().fieldNames(); names.hasNext(); ) {
                String key = names.next();
                if (!keys.contains(key)) {
                    throw new ConfigException(source + ": unknown setting " + section.getKey() + "." + key
                            + "; known in [" + section.getKey() + "]: " + String.join(", ", keys.stream().sorted().toList()));
                }
            }
        }
        for (Map.Entry<String, String> e : env.entrySet()) {
            String name = e.getKey();
            if (!name.startsWith("PULSEBUS_")) {
                continue;
            }
            String rest = name.substring("PULSEBUS_".length()).toLowerCase(Locale.ROOT);
            int cut = rest.indexOf('_');
            if (cut <= 0) {
                continue;
            }
            String section = rest.substring(0, cut);
            String key = rest.substring(cut + 1);
            Set<String> keys = KNOWN.get(section);
            if (keys == null || !keys.contains(key)) {
                throw new ConfigException("environment variable " + name + " names no setting (" + section + "." + key + ")");
            }
            root.withObject("/" + section).put(key, e.getValue());
        }
        Reader r = new Reader(root, source);
        Map<String, Map<String, String>> modules = new LinkedHashMap<>();
        JsonNode mods = root.path("modules");
        for (Iterator<Map.Entry<String, JsonNode>> it = mods.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> m = it.next();
            Map<String, String> settings = new LinkedHashMap<>();
            m.getValue().fields().forEachRemaining(f -> settings.put(f.getKey(), f.getValue().asText()));
            modules.put(m.getKey(), Map.copyOf(settings));
        }
        return new ServerConfig(
                r.text("server", "host", "127.0.0.1"),
                r.integer("server", "port", 8080, 0, 65535),
                r.text("server", "token", ""),
                r.integer("server", "max_body_bytes", 64 * 1024, 256, 64 * 1024 * 1024),
                r.integer("server", "max_header_bytes", 8 * 1024, 1024, 1024 * 1024),
                r.integer("server", "max_connections", 1024, 1, 1_000_000),
                r.integer("server", "request_timeout_ms", 10_000, 100, 3_600_000),
                r.integer("server", "max_pending_messages", 10_000, 1, 10_000_000),
                r.integer("server", "max_poll_timeout_ms", 120_000, 0, 3_600_000),
                r.text("bot", "instance", ""),
                r.bool("metrics", "enabled", true),
                Path.of(r.text("storage", "data_dir", "data")),
                r.text("storage", "jdbc_url", ""),
                r.text("storage", "username", ""),
                r.text("storage", "password", ""),
                r.text("storage", "synchronous", "NORMAL"),
                r.integer("storage", "cache_size", 10_000, 0, 100_000_000),
                r.integer("transcript", "keep_per_chat", 10_000, 1, 100_000_000),
                r.integer("transcript", "max_age_days", 30, 1, 36_500),
                Path.of("modules"),
                Map.copyOf(modules));
    }

    /** This config with the command line's overrides. */
    ServerConfig with(@Nullable Integer port, @Nullable Path dataDir) {
        return new ServerConfig(host, port != null ? port : this.port, token, maxBodyBytes, maxHeaderBytes,
                maxConnections, requestTimeoutMs, maxPendingMessages, maxPollTimeoutMs, instance,
                metricsEnabled, dataDir != null ? dataDir : this.dataDir, jdbcUrl, username, password, synchronous,
                cacheSize, keepPerChat, maxAgeDays, modulesDir, modules);
    }

    /** Typed reads of one setting with its default and range; values from the environment are text. */
    private record Reader(ObjectNode root, String source) {
        private @Nullable JsonNode node(String section, String key) {
            JsonNode n = root.path(section).get(key);
            return n == null || n.isNull() ? null : n;
        }

        String text(String section, String key, String dflt) {
            JsonNode n = node(section, key);
            if (n == null) {
                return dflt;
            }
            if (!n.isValueNode()) {
                throw bad(section, key, "text", n);
            }
            return n.asText();
        }

        int integer(String section, String key, int dflt, int min, int max) {
            JsonNode n = node(section, key);
            if (n == null) {
                return dflt;
            }
            long v;
            if (n.isIntegralNumber()) {
                v = n.asLong();
            } else if (n.isTextual()) {
                try {
                    v = Long.parseLong(n.asText().trim());
                } catch (NumberFormatException e) {
                    throw bad(section, key, "an integer", n);
                }
            } else {
                throw bad(section, key, "an integer", n);
            }
            if (v < min || v > max) {
                throw new ConfigException(source + ": " + section + "." + key + " must be between " + min + " and "
                        + max + ", was " + v);
            }
            return (int) v;
        }

        boolean bool(String section, String key, boolean dflt) {
            JsonNode n = node(section, key);
            if (n == null) {
                return dflt;
            }
            if (n.isBoolean()) {
                return n.asBoolean();
            }
            String t = n.asText().trim().toLowerCase(Locale.ROOT);
            if (t.equals("true") || t.equals("false")) {
                return Boolean.parseBoolean(t);
            }
            throw bad(section, key, "true or false", n);
        }

        private ConfigException bad(String section, String key, String wanted, JsonNode n) {
            return new ConfigException(source + ": " + section + "." + key + " must be " + wanted + ", was " + n);
        }
    }
}
