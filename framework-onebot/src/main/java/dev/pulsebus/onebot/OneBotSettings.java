package dev.pulsebus.onebot;

import dev.pulsebus.config.Section;
import dev.pulsebus.config.ConfigException;
import dev.pulsebus.config.Secret;
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
 * @param accessToken     sent and checked in both directions; empty: none (printed masked, as every {@link Secret})
 * @param secret          http mode, v11: the HMAC-SHA1 key of posted events ({@code X-Signature}); empty: none
 * @param actionTimeoutMs how long an action waits for its response
 * @param maxFrameBytes   the largest frame or posted event taken; larger ones are counted and dropped
 * @param queueCapacity   messages a forward connection that is down holds for when it is back
 * @param allowedOrigins  reverse-ws: the {@code Origin}s whose upgrade is taken (implementations send none; a
 *                        browser always does); empty: any upgrade with an {@code Origin} is refused
 * @param allowAnonymous  reverse-ws and http: served without an access token on a server bound to an address
 *                        other than loopback (else refused at start, {@link #checkIntake})
 */
public record OneBotSettings(int version, boolean enabled, Mode mode, String url, Secret accessToken, Secret secret,
                             int actionTimeoutMs, int maxFrameBytes, int queueCapacity, List<String> allowedOrigins,
                             boolean allowAnonymous) implements dev.pulsebus.platform.PlatformSettings {

    /** Events posted in mode {@code http} may be as large as a frame. */
    @Override
    public int maxBodyBytes() {
        return mode == Mode.HTTP ? maxFrameBytes : 0;
    }

    /** The keys a section may hold. */
    public static final Set<String> KEYS = Set.of("enabled", "mode", "url", "access_token", "secret",
            "action_timeout_ms", "max_frame_bytes", "allowed_origins", "allow_anonymous");
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
        return new OneBotSettings(version, true, mode, url, Secret.NONE, Secret.NONE, DEFAULT_TIMEOUT_MS,
                DEFAULT_MAX_FRAME_BYTES, DEFAULT_QUEUE_CAPACITY, List.of(), false);
    }

    public OneBotSettings withAccessToken(String token) {
        return new OneBotSettings(version, enabled, mode, url, Secret.of(token), secret, actionTimeoutMs, maxFrameBytes,
                queueCapacity, allowedOrigins, allowAnonymous);
    }

    public OneBotSettings withSecret(String secret) {
        return new OneBotSettings(version, enabled, mode, url, accessToken, Secret.of(secret), actionTimeoutMs,
                maxFrameBytes, queueCapacity, allowedOrigins, allowAnonymous);
    }

    public OneBotSettings withAllowAnonymous(boolean allow) {
        return new OneBotSettings(version, enabled, mode, url, accessToken, secret, actionTimeoutMs, maxFrameBytes,
                queueCapacity, allowedOrigins, allow);
    }

    public OneBotSettings withActionTimeoutMs(int ms) {
        return new OneBotSettings(version, enabled, mode, url, accessToken, secret, ms, maxFrameBytes, queueCapacity,
                allowedOrigins, allowAnonymous);
    }

    public OneBotSettings withMaxFrameBytes(int bytes) {
        return new OneBotSettings(version, enabled, mode, url, accessToken, secret, actionTimeoutMs, bytes,
                queueCapacity, allowedOrigins, allowAnonymous);
    }

    public OneBotSettings withQueueCapacity(int capacity) {
        return new OneBotSettings(version, enabled, mode, url, accessToken, secret, actionTimeoutMs, maxFrameBytes,
                capacity, allowedOrigins, allowAnonymous);
    }

    public OneBotSettings withAllowedOrigins(List<String> origins) {
        return new OneBotSettings(version, enabled, mode, url, accessToken, secret, actionTimeoutMs, maxFrameBytes,
                queueCapacity, origins, allowAnonymous);
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
        return read(version, Section.of("adapters.onebot" + version, keys, Map.of(), KEYS, source));
    }

    /**
     * Reads section {@code adapters.onebot<version>}.
     *
     * @throws ConfigException naming the setting that is unknown or wrong, and where it is set
     */
    public static OneBotSettings read(int version, Section r) {
        boolean enabled = r.bool("enabled", true);
        Mode mode;
        try {
            mode = Mode.of(r.text("mode", "reverse-ws").trim());
        } catch (IllegalArgumentException e) {
            throw r.error("mode", "mode " + e.getMessage());
        }
        String url = r.text("url", mode == Mode.FORWARD_WS ? "ws://127.0.0.1:3001" : "");
        if (mode == Mode.FORWARD_WS) { // reverse-ws: not used
            r.url("url", url, Set.of("ws", "wss"), "needs ws://host:port", " for mode " + mode.setting());
        } else if (mode == Mode.HTTP && !url.isEmpty()) {
            r.url("url", url, Set.of("http", "https"), "needs http://host:port", " for mode " + mode.setting());
        }
        return new OneBotSettings(version, enabled, mode, url, Secret.of(r.text("access_token", "")),
                Secret.of(r.text("secret", "")),
                r.integer("action_timeout_ms", DEFAULT_TIMEOUT_MS, 1, 3_600_000),
                r.integer("max_frame_bytes", DEFAULT_MAX_FRAME_BYTES, 256, 64 * 1024 * 1024),
                DEFAULT_QUEUE_CAPACITY, r.list("allowed_origins"), r.bool("allow_anonymous", false));
    }

    /**
     * What is weak in how this section's intake is authenticated, for the log at start and {@code /health};
     * null when nothing is. v11 over HTTP checks posted events by {@code secret} ({@code X-Signature}) alone:
     * without it anyone who reaches the port can post events, whatever the access token.
     */
    public @org.jspecify.annotations.Nullable String warning() {
        if (enabled && mode == Mode.HTTP && version == 11 && secret.isEmpty()) {
            return "adapters." + platform() + ": mode \"http\" without secret: posted events are not authenticated"
                    + (accessToken.isEmpty() ? "" : " (the access_token authenticates only the actions PulseBus calls)")
                    + "; set secret, the HMAC-SHA1 key of X-Signature";
        }
        return null;
    }

    /**
     * Refuses a section that serves the server's port ({@code reverse-ws}, {@code http}) with an empty
     * {@code access_token} when the server listens on {@code host} that is not loopback, unless it says
     * {@code allow_anonymous = true}: anyone who reaches the port could connect as any bot or post events.
     *
     * @throws ConfigException naming the section and the two ways out
     */
    public static void checkIntake(List<OneBotSettings> sections, String host, String source) {
        for (OneBotSettings s : sections) {
            if (s.enabled && s.mode != Mode.FORWARD_WS && s.accessToken.isEmpty() && !s.allowAnonymous
                    && !loopback(host)) {
                throw new ConfigException(source + ": adapters." + s.platform() + " has an empty access_token and "
                        + "server.host = \"" + host + "\" is not loopback: anyone who reaches the port could connect "
                        + "as a bot or post events. Set access_token (and secret for v11 over HTTP), or "
                        + "allow_anonymous = true");
            }
        }
    }

    /** Whether {@code host} names only this machine (a name is resolved; one that does not resolve is not). */
    static boolean loopback(String host) {
        String h = host.strip();
        if (h.startsWith("[") && h.endsWith("]")) {
            h = h.substring(1, h.length() - 1);
        }
        if (h.equalsIgnoreCase("localhost")) {
            return true;
        }
        try {
            for (java.net.InetAddress a : java.net.InetAddress.getAllByName(h)) {
                if (!a.isLoopbackAddress()) {
                    return false;
                }
            }
            return true;
        } catch (java.net.UnknownHostException e) {
            return false;
        }
    }
}
