package dev.pulsebus.telegram;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.pulsebus.config.Section;
import dev.pulsebus.config.ConfigException;
import dev.pulsebus.config.Secret;
import dev.pulsebus.internal.Json;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The settings of the Telegram adapter, section {@code [adapters.telegram]}. Values are read as the text
 * they are (an environment override stays text). The setting "token" holds one bot's token, or several
 * (a TOML array of strings, or separated by commas as an environment variable gives them): each is a bot
 * of its own, with its own {@code Self}, poller (or webhook) and offset.
 *
 * @param tokens             the bots' tokens ({@code <bot id>:<secret>}); printed masked, as every {@link Secret}
 * @param apiUrl             the Bot API's base URL (a local Bot API server or an emulator in its place)
 * @param webhookUrl         webhook mode: the public URL Telegram calls (the server's root, to which
 *                           {@code /telegram/<bot id>/webhook} is added, or that full URL)
 * @param webhookSecret      webhook mode: {@code secret_token}, checked in {@code X-Telegram-Bot-Api-Secret-Token};
 *                           empty: none
 * @param pollTimeoutSeconds {@code getUpdates}'s {@code timeout}
 */
public record TelegramSettings(boolean enabled, Mode mode, List<Secret> tokens, String apiUrl, String webhookUrl,
                               Secret webhookSecret, int pollTimeoutSeconds)
        implements dev.pulsebus.platform.PlatformSettings {

    /** In webhook mode, the host of {@code webhook_url}: Telegram posts to it (a proxy passes it on). */
    @Override
    public Set<String> hostNames() {
        if (!enabled || mode != Mode.WEBHOOK) {
            return Set.of();
        }
        try {
            String host = new java.net.URI(webhookUrl).getHost();
            if (host == null) {
                return Set.of();
            }
            String h = host.toLowerCase(java.util.Locale.ROOT);
            return Set.of(h.startsWith("[") && h.endsWith("]") ? h.substring(1, h.length() - 1) : h);
        } catch (java.net.URISyntaxException e) {
            return Set.of();
        }
    }

    /** The keys a section may hold. */
    public static final Set<String> KEYS = Set.of("enabled", "mode", "token", "api_url", "webhook_url",
            "webhook_secret");
    public static final String DEFAULT_API_URL = "https://api.telegram.org";
    public static final int DEFAULT_POLL_TIMEOUT_SECONDS = 50;
    private static final Set<String> HTTP = Set.of("http", "https");

    /** How updates arrive. */
    public enum Mode {
        POLLING("polling"), WEBHOOK("webhook");

        private final String setting;

        Mode(String setting) {
            this.setting = setting;
        }

        public String setting() {
            return setting;
        }
    }

    public TelegramSettings {
        Objects.requireNonNull(mode, "mode");
        tokens = List.copyOf(tokens);
        Objects.requireNonNull(apiUrl, "apiUrl");
        Objects.requireNonNull(webhookUrl, "webhookUrl");
        Objects.requireNonNull(webhookSecret, "webhookSecret");
        for (Secret t : tokens) {
            if (botId(t.reveal()).isEmpty()) {
                throw new IllegalArgumentException("a Telegram token is <bot id>:<secret>, the bot id digits");
            }
        }
        if (pollTimeoutSeconds < 0 || pollTimeoutSeconds > 3600) {
            throw new IllegalArgumentException("pollTimeoutSeconds out of range: " + pollTimeoutSeconds);
        }
        while (apiUrl.endsWith("/")) {
            apiUrl = apiUrl.substring(0, apiUrl.length() - 1);
        }
    }

    /** Polling with defaults, bots {@code tokens}, at {@code apiUrl}. */
    public static TelegramSettings polling(String apiUrl, String... tokens) {
        return new TelegramSettings(true, Mode.POLLING, java.util.Arrays.stream(tokens).map(Secret::of).toList(), apiUrl,
                "", Secret.NONE, DEFAULT_POLL_TIMEOUT_SECONDS);
    }

    public TelegramSettings withWebhook(String url, String secret) {
        return new TelegramSettings(enabled, Mode.WEBHOOK, tokens, apiUrl, url, Secret.of(secret), pollTimeoutSeconds);
    }

    public TelegramSettings withPollTimeoutSeconds(int seconds) {
        return new TelegramSettings(enabled, mode, tokens, apiUrl, webhookUrl, webhookSecret, seconds);
    }

    /** The bot id of {@code token}, its part before {@code :}; empty when that is not digits. */
    static String botId(String token) {
        int colon = token.indexOf(':');
        if (colon <= 0 || colon == token.length() - 1) {
            return "";
        }
        for (int i = 0; i < colon; i++) {
            if (!Character.isDigit(token.charAt(i))) {
                return "";
            }
        }
        return token.substring(0, colon);
    }

    /** Where Telegram posts the updates of bot {@code botId}. */
    String webhookFor(String botId) {
        String path = "/telegram/" + botId + "/webhook";
        if (webhookUrl.endsWith(path)) {
            return webhookUrl;
        }
        return (webhookUrl.endsWith("/") ? webhookUrl.substring(0, webhookUrl.length() - 1) : webhookUrl) + path;
    }

    /**
     * Reads section {@code adapters.telegram} from {@code keys} (key to text).
     *
     * @throws ConfigException naming the setting that is unknown or wrong
     */
    public static TelegramSettings read(Map<String, String> keys, String source) {
        return read(Section.of("adapters.telegram", keys, Map.of(), KEYS, source));
    }

    /**
     * Reads section {@code adapters.telegram}.
     *
     * @throws ConfigException naming the setting that is unknown or wrong, and where it is set
     */
    public static TelegramSettings read(Section r) {
        boolean enabled = r.bool("enabled", true);
        String modeText = r.text("mode", "polling").trim();
        Mode mode = switch (modeText) {
            case "polling" -> Mode.POLLING;
            case "webhook" -> Mode.WEBHOOK;
            default -> throw r.error("mode", "mode must be \"polling\" or \"webhook\", was \"" + modeText + "\"");
        };
        List<Secret> tokens = tokens(r);
        if (enabled && tokens.isEmpty()) {
            throw r.error("token", "token is empty: set it to the token BotFather gave (or PULSEBUS_ADAPTERS_TELEGRAM__TOKEN), "
                    + "or enabled = false");
        }
        String apiUrl = r.text("api_url", DEFAULT_API_URL).strip();
        r.url("api_url", apiUrl, HTTP, "needs http(s)://host", "");
        String webhookUrl = r.text("webhook_url", "").strip();
        if (mode == Mode.WEBHOOK) {
            if (webhookUrl.isEmpty()) {
                throw r.error("webhook_url", "webhook_url is empty: webhook mode needs the public URL Telegram calls");
            }
            r.url("webhook_url", webhookUrl, HTTP, "needs http(s)://host", "");
        }
        String secret = r.text("webhook_secret", "");
        if (!secret.matches("[A-Za-z0-9_-]{0,256}")) {
            throw r.error("webhook_secret", "webhook_secret may hold 1 to 256 of A-Z, a-z, 0-9, _ and - (the Bot API's secret_token)");
        }
        return new TelegramSettings(enabled, mode, tokens, apiUrl, webhookUrl, Secret.of(secret),
                DEFAULT_POLL_TIMEOUT_SECONDS);
    }

    /**
     * The tokens in the setting's text: one token, several separated by commas (as an environment variable
     * gives them), or a TOML array of strings ({@code token = ["1:a", "2:b"]}, which the file hands over as
     * its JSON text). A bot id given twice is an error: each bot is one {@code Self}.
     */
    private static List<Secret> tokens(Section r) {
        List<String> given;
        try {
            given = Section.strings(r.text("token", ""));
        } catch (IllegalArgumentException e) {
            throw r.error("token", "token " + String.valueOf(e.getMessage()).replace("a text", "a bot token"));
        }
        List<Secret> tokens = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        for (String t : given) {
            String token = t.strip();
            if (token.isEmpty()) {
                continue;
            }
            String id = botId(token);
            if (id.isEmpty()) {
                throw r.error("token", "token is not a bot token (<bot id>:<secret>, as BotFather gives it)");
            }
            if (!ids.add(id)) {
                throw r.error("token", "token names bot " + id + " twice");
            }
            tokens.add(Secret.of(token));
        }
        return tokens;
    }
}
