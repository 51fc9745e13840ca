package dev.pulsebus.onebot;

import dev.pulsebus.adapter.AdapterMeters;
import dev.pulsebus.netty.WriteLimit;
import dev.pulsebus.internal.FailureLog;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One adapter's counters, and their meters when there is a registry: {@code pulsebus_onebot_frames_total
 * {version,direction,kind}}, {@code pulsebus_onebot_bad_frames_total{version,reason}}, {@code
 * pulsebus_onebot_actions_total{version,action,outcome}} (actions outside {@link #ACTIONS} as {@code other}),
 * {@code pulsebus_onebot_action_duration_seconds{version}}, {@code pulsebus_onebot_connections{version}},
 * {@code pulsebus_onebot_reconnects_total{version}}, {@code pulsebus_onebot_bots_untracked_total{version}},
 * {@code pulsebus_onebot_connections_closed_total{version,reason}}. Every label set is bounded by construction; counting
 * is a {@link LongAdder} increment, no lock and no allocation.
 */
final class OneBotMetrics {

    private static final Logger LOG = LoggerFactory.getLogger(OneBotMetrics.class);

    /** What a frame was. */
    enum Kind {
        EVENT("in", "event"), RESPONSE("in", "response"), ACTION("out", "action");

        final String direction;
        final String label;

        Kind(String direction, String label) {
            this.direction = direction;
            this.label = label;
        }
    }

    /** Why an inbound frame (or part of one) was not taken. */
    enum Bad {
        NOT_JSON("not_json"), NOT_UTF8("not_utf8"), OVERSIZED("oversized"), NULL("null"), UNKNOWN_TYPE("unknown_type"),
        INVALID("invalid"), BINARY("binary"), UNMATCHED("unmatched_response"), LANE_FULL("lane_full"),
        QUEUE_FULL("queue_full");

        final String label;

        Bad(String label) {
            this.label = label;
        }
    }

    enum Outcome {
        OK("ok"), FAILED("failed"), TIMEOUT("timeout"), DISCONNECTED("disconnected"), REFUSED("refused");

        final String label;

        Outcome(String label) {
            this.label = label;
        }
    }

    static final List<String> ACTIONS = List.of("send_msg", "send_private_msg", "send_group_msg", "send_message",
            "delete_msg", "delete_message", "get_msg", "get_login_info", "get_self_info", "get_group_info",
            "get_group_member_info", "get_group_member_list", "set_group_ban", "set_group_kick",
            "set_friend_add_request", "set_group_add_request", "other");
    private static final Map<String, Integer> ACTION_INDEX = new HashMap<>();

    static {
        for (int i = 0; i < ACTIONS.size(); i++) {
            ACTION_INDEX.put(ACTIONS.get(i), i);
        }
    }

    private final String version;
    private final Map<Kind, LongAdder> frames = AdapterMeters.adders(Kind.class);
    private final Map<Bad, LongAdder> bad = AdapterMeters.adders(Bad.class);
    /** By action index ({@link #actionIndex}), then outcome. */
    private final List<Map<Outcome, LongAdder>> actions = new ArrayList<>(ACTIONS.size());
    final AtomicInteger connections = new AtomicInteger();
    final LongAdder reconnects = new LongAdder();
    /** New bots not tracked (cannot be answered) because every place of the bots table held a connected bot. */
    final LongAdder botsUntracked = new LongAdder();
    /** The backpressure counts of the forward connections (the reverse ones are the server's). */
    final WriteLimit.Counts writes = new WriteLimit.Counts();
    /** Actions of a bot connected to another instance of the cluster, sent there ({@link ActionRelay}). */
    final LongAdder relayedOut = new LongAdder();
    /** Actions another instance of the cluster sent here, for a bot connected here. */
    final LongAdder relayedIn = new LongAdder();
    private final FailureLog badLog = FailureLog.warning(LOG, Duration.ofSeconds(10));
    private @Nullable Timer duration;
    private final AdapterMeters meters = new AdapterMeters();

    OneBotMetrics(String version) {
        this.version = version;
        for (int i = 0; i < ACTIONS.size(); i++) {
            actions.add(AdapterMeters.adders(Outcome.class));
        }
    }

    private static LongAdder get(Map<?, LongAdder> adders, Object key) {
        return AdapterMeters.get(adders, key);
    }

    void frame(Kind kind) {
        get(frames, kind).increment();
    }

    /** Counts a bad frame and warns, the first time and then at most every 10 s; the connection stays up. */
    void bad(Bad reason, String detail) {
        get(bad, reason).increment();
        badLog.warn("OneBot v{}: {} frame taken no further ({}); counted in pulsebus_onebot_bad_frames_total, "
                + "warned at most every 10 s", version, reason.label, detail);
    }

    long bad(Bad reason) {
        return get(bad, reason).sum();
    }

    long frames(Kind kind) {
        return get(frames, kind).sum();
    }

    static int actionIndex(String action) {
        Integer i = ACTION_INDEX.get(action);
        return i == null ? ACTIONS.size() - 1 : i;
    }

    void action(int actionIndex, Outcome outcome, long startNanos) {
        get(actions.get(actionIndex), outcome).increment();
        Timer t = duration;
        if (t != null && startNanos != 0) {
            t.record(System.nanoTime() - startNanos, TimeUnit.NANOSECONDS);
        }
    }

    long actions(String action, Outcome outcome) {
        return get(actions.get(actionIndex(action)), outcome).sum();
    }

    void bind(MeterRegistry registry) {
        meters.bind(registry);
        for (Kind k : Kind.values()) {
            meters.counter("pulsebus.onebot.frames", "OneBot frames by direction and kind", get(frames, k),
                    "version", version, "direction", k.direction, "kind", k.label);
        }
        for (Bad b : Bad.values()) {
            meters.counter("pulsebus.onebot.bad.frames",
                    "Inbound OneBot frames not taken, and outbound messages refused, by reason", get(bad, b),
                    "version", version, "reason", b.label);
        }
        for (int a = 0; a < ACTIONS.size(); a++) {
            for (Outcome o : Outcome.values()) {
                meters.counter("pulsebus.onebot.actions", "OneBot actions by action and outcome",
                        get(actions.get(a), o), "version", version, "action", ACTIONS.get(a), "outcome", o.label);
            }
        }
        duration = meters.add(Timer.builder("pulsebus.onebot.action.duration")
                .description("From an action sent to its response").tag("version", version).register(registry));
        meters.add(Gauge.builder("pulsebus.onebot.connections", connections, AtomicInteger::get)
                .description("Open OneBot connections").tag("version", version).register(registry));
        meters.counter("pulsebus.onebot.reconnects", "Forward WebSocket reconnects", reconnects, "version", version);
        meters.counter("pulsebus.onebot.bots.untracked", "New bots not tracked, so not answered: all "
                + Bots.MAX + " places held a connected bot", botsUntracked, "version", version);
        meters.counter("pulsebus.onebot.connections.closed", "Forward WebSockets closed because the implementation "
                + "did not read what it was sent (over 4 MiB queued)", writes.closed, "version", version,
                "reason", "slow_reader");
        String relayed = "Actions of a bot connected to another instance of the cluster, sent through it (out), and "
                + "performed here for another instance (in)";
        meters.counter("pulsebus.onebot.relayed", relayed, relayedOut, "version", version, "direction", "out");
        meters.counter("pulsebus.onebot.relayed", relayed, relayedIn, "version", version, "direction", "in");
    }

    void unbind() {
        meters.unbind();
        duration = null;
    }
}
