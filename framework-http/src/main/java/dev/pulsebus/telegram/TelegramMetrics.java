package dev.pulsebus.telegram;

import dev.pulsebus.internal.FailureLog;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The adapter's counters, and their meters when there is a registry: {@code pulsebus_telegram_updates_total
 * {type}} (the update types in {@link #TYPES}, others as {@code other}), {@code
 * pulsebus_telegram_bad_updates_total{reason}}, {@code pulsebus_telegram_api_calls_total{method,outcome}}
 * (methods outside {@link #METHODS} as {@code other}), {@code pulsebus_telegram_webhook_refused_total}.
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

    private final Map<String, LongAdder> updates = new HashMap<>();
    private final Map<Bad, LongAdder> bad = new EnumMap<>(Bad.class);
    private final Map<String, Map<Outcome, LongAdder>> calls = new HashMap<>();
    final LongAdder webhookRefused = new LongAdder();
    private final FailureLog badLog = FailureLog.warning(LOG, Duration.ofSeconds(10));
    private final List<Meter> meters = new ArrayList<>();
    private @Nullable MeterRegistry registry;

    TelegramMetrics() {
        for (String t : TYPES) {
            updates.put(t, new LongAdder());
        }
        for (Bad b : Bad.values()) {
            bad.put(b, new LongAdder());
        }
        for (String m : METHODS) {
            Map<Outcome, LongAdder> byOutcome = new EnumMap<>(Outcome.class);
            for (Outcome o : Outcome.values()) {
                byOutcome.put(o, new LongAdder());
            }
            calls.put(m, byOutcome);
        }
    }

    void update(String type) {
        LongAdder a = updates.get(type);
        Objects.requireNonNull(a != null ? a : updates.get("other")).increment();
    }

    long updates(String type) {
        return Objects.requireNonNull(updates.get(type)).sum();
    }

    /** Counts an update not taken and warns, the first time and then at most every 10 s; polling goes on. */
    void bad(Bad reason, String detail) {
        Objects.requireNonNull(bad.get(reason)).increment();
        badLog.warn("Telegram: an update taken no further ({}: {}); counted in pulsebus_telegram_bad_updates_total, "
                + "warned at most every 10 s", reason.label, detail);
    }

    long bad(Bad reason) {
        return Objects.requireNonNull(bad.get(reason)).sum();
    }

    void call(String method, Outcome outcome) {
        Map<Outcome, LongAdder> m = calls.get(method);
        Objects.requireNonNull(Objects.requireNonNull(m != null ? m : calls.get("other")).get(outcome)).increment();
    }

    long calls(String method, Outcome outcome) {
        return Objects.requireNonNull(Objects.requireNonNull(calls.get(method)).get(outcome)).sum();
    }

    void bind(MeterRegistry registry) {
        this.registry = registry;
        for (String t : TYPES) {
            meters.add(FunctionCounter.builder("pulsebus.telegram.updates", Objects.requireNonNull(updates.get(t)), LongAdder::sum)
                    .description("Telegram updates taken, by type").tag("type", t).register(registry));
        }
        for (Bad b : Bad.values()) {
            meters.add(FunctionCounter.builder("pulsebus.telegram.bad.updates", Objects.requireNonNull(bad.get(b)), LongAdder::sum)
                    .description("Telegram updates not taken, by reason").tag("reason", b.label).register(registry));
        }
        for (String m : METHODS) {
            for (Outcome o : Outcome.values()) {
                meters.add(FunctionCounter.builder("pulsebus.telegram.api.calls",
                                Objects.requireNonNull(Objects.requireNonNull(calls.get(m)).get(o)), LongAdder::sum)
                        .description("Bot API calls by method and outcome").tag("method", m).tag("outcome", o.label)
                        .register(registry));
            }
        }
        meters.add(FunctionCounter.builder("pulsebus.telegram.webhook.refused", webhookRefused, LongAdder::sum)
                .description("Webhook posts answered 401: no or a wrong secret token").register(registry));
    }

    void unbind() {
        MeterRegistry r = registry;
        if (r != null) {
            meters.forEach(r::remove);
            meters.clear();
        }
    }
}
