package dev.pulsebus.onebot;

import dev.pulsebus.adapter.SectionReader;
import dev.pulsebus.config.ConfigException;
import java.util.List;
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
 * @param allowedOrigins  reverse-ws: the {@code Origin}s whose upgrade is taken (implementations send none; a
 *                        browser always does); empty: any upgrade with an {@code Origin} is refused
 */
public record OneBotSettings(int version, boolean enabled, Mode mode, String url, String accessToken, String secret,
                             int actionTimeoutMs, int maxFrameBytes, int queueCapacity, List<String> allowedOrigins) {

    /** The keys a section may hold. */
    public static final Set<String> KEYS = Set.of("enabled", "mode", "url", "access_token", "secret",
            "action_timeout_ms", "max_frame_bytes", "allowed_origins");
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
        allowedOrigins = List.copyOf(allowedOrigins);
        if (actionTimeoutMs < 1 || maxFrameBytes < 256 || queueCapacity < 0) {
            throw new IllegalArgumentException("actionTimeoutMs, maxFrameBytes or queueCapacity out of range");
        }
    }

    /** Defaults of {@code version} in {@code mode}, at {@code url}. */
    public static OneBotSettings of(int version, Mode mode, String url) {
        return new OneBotSettings(version, true, mode, url, "", "", DEFAULT_TIMEOUT_MS, DEFAULT_MAX_FRAME_BYTES,
                DEFAULT_QUEUE_CAPACITY, List.of());
    }

    public OneBotSettings withAccessToken(String token) {
        return new OneBotSettings(version, enabled, mode, url, token, secret, actionTimeoutMs, maxFrameBytes,
                queueCapacity, allowedOrigins);
    }

    public OneBotSettings withSecret(String secret) {
        return new OneBotSettings(version, enabled, mode, url, accessToken, secret, actionTimeoutMs, maxFrameBytes,
                queueCapacity, allowedOrigins);
    }

    public OneBotSettings withActionTimeoutMs(int ms) {
        return new OneBotSettings(version, enabled, mode, url, accessToken, secret, ms, maxFrameBytes, queueCapacity,
                allowedOrigins);
    }

    public OneBotSettings withMaxFrameBytes(int bytes) {
        return new OneBotSettings(version, enabled, mode, url, accessToken, secret, actionTimeoutMs, bytes,
                queueCapacity, allowedOrigins);
    }

    public OneBotSettings withQueueCapacity(int capacity) {
        return new OneBotSettings(version, enabled, mode, url, accessToken, secret, actionTimeoutMs, maxFrameBytes,
                capacity, allowedOrigins);
    }

    public OneBotSettings withAllowedOrigins(List<String> origins) {
        return new OneBotSettings(version, enabled, mode, url, accessToken, secret, actionTimeoutMs, maxFrameBytes,
                queueCapacity, origins);
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
        SectionReader r = new SectionReader("adapters.onebot" + version, keys, KEYS, source);
        boolean enabled = r.bool("enabled", true);
        Mode mode;
        try {
            mode = Mode.of(r.text("mode", "reverse-ws").trim());
        } catch (IllegalArgumentException e) {
            throw r.error("mode " + e.getMessage());
        }
        String url = r.text("url", mode == Mode.FORWARD_WS ? "ws://127.0.0.1:3001" : "");
        if (mode == Mode.FORWARD_WS) { // reverse-ws: not used
            r.url("url", url, Set.of("ws", "wss"), "needs ws://host:port", " for mode " + mode.setting());
        } else if (mode == Mode.HTTP && !url.isEmpty()) {
            r.url("url", url, Set.of("http", "https"), "needs http://host:port", " for mode " + mode.setting());
        }
        return new OneBotSettings(version, enabled, mode, url, r.text("access_token", ""), r.text("secret", ""),
                r.integer("action_timeout_ms", DEFAULT_TIMEOUT_MS, 1, 3_600_000),
                r.integer("max_frame_bytes", DEFAULT_MAX_FRAME_BYTES, 256, 64 * 1024 * 1024),
                DEFAULT_QUEUE_CAPACITY, r.list("allowed_origins"));
    }
}
