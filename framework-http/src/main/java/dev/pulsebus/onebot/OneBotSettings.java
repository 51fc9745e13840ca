package dev.pulsebus.onebot;

import dev.pulsebus.config.ConfigException;
import java.net.URI;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The settings of one OneBot adapter, section {@code [adapters.onebot11]} or {@code [adapters.onebot12]}.
 * Values are read as the text they are (an environment override {@code 0123} stays {@code 0123}).
 *
 * @param version         11 or 12
 * @param mode            how the implementation is reached
 * @param url             forward-ws: the implementation's WebSocket URL; http: its HTTP API base (empty: replies
 *                        as v11 quick operations only)
 * @param accessToken     sent and checked in both directions; empty: none
 * @param secret          http mode, v11: the HMAC-SHA1 key of posted events ({@code X-Signature}); empty: none
 * @param actionTimeoutMs how long an action waits for its response
 * @param maxFrameBytes   the largest frame or posted event taken; larger ones are counted and dropped
 * @param queueCapacity   messages a forward connection that is down holds for when it is back
 */
public record OneBotSettings(int version, boolean enabled, Mode mode, String url, String accessToken, String secret,
                             int actionTimeoutMs, int maxFrameBytes, int queueCapacity) {

    /** The keys a section may hold. */
    public static final Set<String> KEYS = Set.of("enabled", "mode", "url", "access_token", "secret",
            "action_timeout_ms", "max_frame_bytes");
    public static final int DEFAULT_TIMEOUT_MS = 10_000;
    public static final int DEFAULT_MAX_FRAME_BYTES = 1024 * 1024;
    public static final int DEFAULT_QUEUE_CAPACITY = 1000;

    public OneBotSettings {
        if (version != 11 && version != 12) {
            throw new IllegalArgumentException("OneBot version must be 11 or 12, was " + version);
        }
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(url, "url");
        Objects.requireNonNull(accessToken, "accessToken");
        Objects.requireNonNull(secret, "secret");
        if (actionTimeoutMs < 1 || maxFrameBytes < 256 || queueCapacity < 0) {
            throw new IllegalArgumentException("actionTimeoutMs, maxFrameBytes or queueCapacity out of range");
        }
    }

    /** Defaults of {@code version} in {@code mode}, at {@code url}. */
    public static OneBotSettings of(int version, Mode mode, String url) {
        return new OneBotSettings(version, true, mode, url, "", "", DEFAULT_TIMEOUT_MS, DEFAULT_MAX_FRAME_BYTES,
                DEFAULT_QUEUE_CAPACITY);
    }

    public OneBotSettings withAccessToken(String token) {
        return new OneBotSettings(version, enabled, mode, url, token, secret, actionTimeoutMs, maxFrameBytes,
                queueCapacity);
    }

    public OneBotSettings withSecret(String secret) {
        return new OneBotSettings(version, enabled, mode, url, accessToken, secret, actionTimeoutMs, maxFrameBytes,
                queueCapacity);
    }

    public OneBotSettings withActionTimeoutMs(int ms) {
        return new OneBotSettings(version, enabled, mode, url, accessToken, secret, ms, maxFrameBytes, queueCapacity);
    }

    public OneBotSettings withMaxFrameBytes(int bytes) {
        return new OneBotSettings(version, enabled, mode, url, accessToken, secret, actionTimeoutMs, bytes,
                queueCapacity);
    }

    public OneBotSettings withQueueCapacity(int capacity) {
        return new OneBotSettings(version, enabled, mode, url, accessToken, secret, actionTimeoutMs, maxFrameBytes,
                capacity);
    }

    /** The platform name of its events and chats: {@code onebot11} or {@code onebot12}. */
    public String platform() {
        return "onebot" + version;
    }

    /**
     * Reads section {@code adapters.onebot<version>} from {@code keys} (key to text).
     *
     * @throws ConfigException naming the setting that is unknown or wrong
     */
    public static OneBotSettings read(int version, Map<String, String> keys, String source) {
        String section = "adapters.onebot" + version;
        for (String key : keys.keySet()) {
            if (!KEYS.contains(key)) {
                throw new ConfigException(source + ": unknown setting " + section + "." + key + "; known in ["
                        + section + "]: " + String.join(", ", KEYS.stream().sorted().toList()));
            }
        }
        String enabledText = keys.getOrDefault("enabled", "true").trim();
        if (!enabledText.equalsIgnoreCase("true") && !enabledText.equalsIgnoreCase("false")) {
            throw new ConfigException(source + ": " + section + ".enabled must be true or false, was \"" + enabledText + "\"");
        }
        Mode mode;
        try {
            mode = Mode.of(keys.getOrDefault("mode", "reverse-ws").trim());
        } catch (IllegalArgumentException e) {
            throw new ConfigException(source + ": " + section + ".mode " + e.getMessage());
        }
        String url = keys.getOrDefault("url", mode == Mode.FORWARD_WS ? "ws://127.0.0.1:3001" : "");
        if (mode == Mode.FORWARD_WS || (mode == Mode.HTTP && !url.isEmpty())) { // reverse-ws: not used
            try {
                URI u = new URI(url);
                String scheme = u.getScheme() == null ? "" : u.getScheme();
                boolean ws = scheme.equals("ws") || scheme.equals("wss");
                boolean http = scheme.equals("http") || scheme.equals("https");
                if (u.getHost() == null || (mode == Mode.FORWARD_WS ? !ws : !http)) {
                    throw new java.net.URISyntaxException(url, mode == Mode.FORWARD_WS
                            ? "needs ws://host:port" : "needs http://host:port");
                }
            } catch (java.net.URISyntaxException e) {
                throw new ConfigException(source + ": " + section + ".url is not a usable URL for mode "
                        + mode.setting() + ": " + e.getMessage());
            }
        }
        return new OneBotSettings(version, Boolean.parseBoolean(enabledText), mode, url,
                keys.getOrDefault("access_token", ""), keys.getOrDefault("secret", ""),
                integer(keys, "action_timeout_ms", DEFAULT_TIMEOUT_MS, 1, 3_600_000, section, source),
                integer(keys, "max_frame_bytes", DEFAULT_MAX_FRAME_BYTES, 256, 64 * 1024 * 1024, section, source),
                DEFAULT_QUEUE_CAPACITY);
    }

    private static int integer(Map<String, String> keys, String key, int dflt, int min, int max, String section,
                               String source) {
        String v = keys.get(key);
        if (v == null) {
            return dflt;
        }
        long n;
        try {
            n = Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw new ConfigException(source + ": " + section + "." + key + " must be an integer, was \"" + v + "\"");
        }
        if (n < min || n > max) {
            throw new ConfigException(source + ": " + section + "." + key + " must be between " + min + " and " + max
                    + ", was " + n);
        }
        return (int) n;
    }
}
