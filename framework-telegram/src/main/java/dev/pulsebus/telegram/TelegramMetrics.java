package dev.pulsebus.telegram;

import dev.pulsebus.adapter.AdapterMeters;
import dev.pulsebus.internal.FailureLog;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The adapter's counters, and their meters when there is a registry: {@code pulsebus_telegram_updates_total
 * {type}} (the update types in {@link #TYPES}, others as {@code other}), {@code
 * pulsebus_telegram_bad_updates_total{reason}}, {@code pulsebus_telegram_api_calls_total{method,outcome}}
 * (methods outside {@link #METHODS} as {@code other}), {@code pulsebus_telegram_webhook_refused_total}, and in
 * polling mode {@code pulsebus_telegram_polling{bot}} (1 while this instance polls the bot: in a cluster, the one
 * holding its lease).
 * Every label set is bounded by construction; counting is a {@link LongAdder} increment.
 */
final class TelegramMetrics {

    private static final Logger LOG = LoggerFactory.getLogger(TelegramMetrics.class);

    static final List<String> TYPES = List.of("message", "edited_message", "channel_post", "edited_channel_post",
            "callback_query", "my_chat_member", "chat_member", "other");
    static final List<String> METHODS = List.of("getUpdates", "sendMessage", "sendPhoto", "getMe", "setWebhook",
            "deleteWebhook", "other");

    /** Why an update was not taken. */
    enum Bad {
        NOT_JSON("not_json"), INVALID("invalid");

        final String label;

        Bad(String label) {
            this.label = label;
        }
    }

    enum Outcome {
        OK("ok"), FAILED("failed"), RATE_LIMITED("rate_limited"), SERVER_ERROR("server_error"), NETWORK("network");

        final String label;

        Outcome(String label) {
            this.label = label;
        }
    }

    private final Map<String, LongAdder> updates = AdapterMeters.adders(TYPES);
    private final Map<Bad, LongAdder> bad = AdapterMeters.adders(Bad.class);
    private final Map<String, Map<Outcome, LongAdder>> calls = new HashMap<>();
    final LongAdder webhookRefused = new LongAdder();
    private final FailureLog badLog = FailureLog.warning(LOG, Duration.ofSeconds(10));
    private final AdapterMeters meters = new AdapterMeters();

    TelegramMetrics() {
        for (String m : METHODS) {
            calls.put(m, AdapterMeters.adders(Outcome.class));
        }
    }

    void update(String type) {
        LongAdder a = updates.get(type);
        (a != null ? a : AdapterMeters.get(updates, "other")).increment();
    }

    long updates(String type) {
        return AdapterMeters.get(updates, type).sum();
    }

    /** Counts an update not taken and warns, the first time and then at most every 10 s; polling goes on. */
    void bad(Bad reason, String detail) {
        AdapterMeters.get(bad, reason).increment();
        badLog.warn("Telegram: an update taken no further ({}: {}); counted in pulsebus_telegram_bad_updates_total, "
                + "warned at most every 10 s", reason.label, detail);
    }

    long bad(Bad reason) {
        return AdapterMeters.get(bad, reason).sum();
    }

    void call(String method, Outcome outcome) {
        Map<Outcome, LongAdder> m = calls.get(method);
        AdapterMeters.get(m != null ? m : Objects.requireNonNull(calls.get("other")), outcome).increment();
    }

    long calls(String method, Outcome outcome) {
        return AdapterMeters.get(Objects.requireNonNull(calls.get(method)), outcome).sum();
    }

    void bind(MeterRegistry registry) {
        meters.bind(registry);
        for (String t : TYPES) {
            meters.counter("pulsebus.telegram.updates", "Telegram updates taken, by type", AdapterMeters.get(updates, t),
                    "type", t);
        }
        for (Bad b : Bad.values()) {
            meters.counter("pulsebus.telegram.bad.updates", "Telegram updates not taken, by reason",
                    AdapterMeters.get(bad, b), "reason", b.label);
        }
        for (String m : METHODS) {
            for (Outcome o : Outcome.values()) {
                meters.counter("pulsebus.telegram.api.calls", "Bot API calls by method and outcome",
                        AdapterMeters.get(Objects.requireNonNull(calls.get(m)), o), "method", m, "outcome", o.label);
            }
        }
        meters.counter("pulsebus.telegram.webhook.refused", "Webhook posts answered 401: no or a wrong secret token",
                webhookRefused);
    }

    /** Registers {@code pulsebus_telegram_polling{bot}}: 1 while {@code polls} says this instance polls it. */
    void polling(String bot, java.util.function.BooleanSupplier polls) {
        meters.add(io.micrometer.core.instrument.Gauge.builder("pulsebus.telegram.polling", polls,
                        p -> p.getAsBoolean() ? 1 : 0)
                .description("1 while this instance polls the bot (in a cluster: holds its polling lease)")
                .tag("bot", bot).strongReference(true).register(meters.registry()));
    }

    void unbind() {
        meters.unbind();
    }
}
