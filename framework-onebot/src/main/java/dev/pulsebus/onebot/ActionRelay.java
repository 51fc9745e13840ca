package dev.pulsebus.onebot;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulsebus.platform.InstanceMessaging;
import dev.pulsebus.internal.FailureLog;
import dev.pulsebus.internal.Json;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The actions of a bot whose connection is on another instance of the cluster (a reverse WebSocket reaches the one
 * instance the implementation, or the load balancer in front, picked; the chat's events are handled wherever its
 * partition is held). The action is broadcast; an instance with a connection of that bot that takes actions
 * claims it in Redis (so that one performs it when several have the bot), performs it and sends the response, or
 * the failure, back to the asking instance alone. No answer within {@code action_timeout_ms} fails the stage as a
 * timeout that says no instance answered. The adapter relays only the actions of bots another instance has
 * announced lately ({@link #reachableElsewhere(String)}), and refuses the others at once.
 *
 * <p>Every {@value #PRESENCE_MILLIS} ms each instance tells the others which bots are connected to it, so that
 * {@code /health} on an instance without a bot's connection shows the bot up while another instance has it.
 *
 * <p>At most {@value #MAX_PENDING} actions wait for an answer at once; beyond, refused (counted as refused).
 * An action is performed at most once, except while Redis is down and two instances that are not the asking one
 * have the bot: then both may.
 */
final class ActionRelay {

    private static final Logger LOG = LoggerFactory.getLogger(ActionRelay.class);
    static final int MAX_PENDING = 10_000;
    /** How often an instance tells the others which bots are connected to it. */
    static final long PRESENCE_MILLIS = 2_000;
    /** How long an instance's claim on a relayed action stays beyond the wait for its answer. */
    private static final long CLAIM_MARGIN_MILLIS = 60_000;

    private final OneBotAdapter adapter;
    private final InstanceMessaging cluster;
    private final String requestKind;
    private final String resultKind;
    private final long timeoutMillis;
    private final String idPrefix;
    private final AtomicLong ids = new AtomicLong();
    private final ConcurrentHashMap<String, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();
    private final FailureLog badMessages = FailureLog.warning(LOG, Duration.ofSeconds(10));
    private final String presenceKind;
    /** The bots each other instance said it has, until a while after it last said so. */
    private final ConcurrentHashMap<String, Presence> elsewhere = new ConcurrentHashMap<>();
    private final AtomicLong presenceChanges = new AtomicLong();
    private volatile @Nullable Thread announcer;

    /** What an instance said of its bots; forgotten at {@code untilNanos} unless said again. */
    private record Presence(List<String> bots, long untilNanos) {
    }

    ActionRelay(OneBotAdapter adapter, InstanceMessaging cluster) {
        this.adapter = adapter;
        this.cluster = cluster;
        this.requestKind = adapter.platform() + "-action";
        this.resultKind = adapter.platform() + "-result";
        this.presenceKind = adapter.platform() + "-bots";
        this.timeoutMillis = adapter.settings().actionTimeoutMs();
        // unique in the cluster, and across restarts of an instance of a fixed name
        this.idPrefix = cluster.instance() + "/" + Long.toString(System.currentTimeMillis(), 36) + "/";
    }

    /** Sends {@code action} of bot {@code selfId} to the instance that has its connection; completes with its data. */
    CompletableFuture<JsonNode> call(String selfId, String action, ObjectNode params) {
        CompletableFuture<JsonNode> result = new CompletableFuture<>();
        String address = cluster.address();
        if (address.isEmpty()) {
            result.completeExceptionally(OneBotActionException.refused(action, "bot " + selfId + " has no "
                    + "connection to this instance, and this instance has not joined the cluster yet"));
            return result;
        }
        if (pending.size() >= MAX_PENDING) {
            result.completeExceptionally(OneBotActionException.refused(action, MAX_PENDING + " actions already "
                    + "wait for other instances of the cluster"));
            return result;
        }
        String id = idPrefix + ids.incrementAndGet();
        pending.put(id, result);
        ObjectNode request = Json.MAPPER.createObjectNode().put("id", id).put("to", address).put("self", selfId)
                .put("action", action);
        request.set("params", params);
        try {
            cluster.broadcast(requestKind, Json.MAPPER.writeValueAsBytes(request));
        } catch (IOException | RuntimeException e) {
            pending.remove(id);
            result.completeExceptionally(OneBotActionException.refused(action, "it could not be sent to the other "
                    + "instances of the cluster: " + e));
            return result;
        }
        adapter.metrics.relayedOut.increment();
        CompletableFuture.delayedExecutor(timeoutMillis, TimeUnit.MILLISECONDS).execute(() -> {
            if (pending.remove(id, result)) {
                result.completeExceptionally(new OneBotActionException(action, OneBotActionException.Kind.TIMEOUT, -1,
                        "OneBot action " + action + " of bot " + selfId + ": no instance of the cluster answered within "
                                + timeoutMillis + " ms (action_timeout_ms); is the bot connected to any?"));
            }
        });
        return result;
    }

    /**
     * A message of another instance for this relay: true when {@code kind} is one of its own (then handled),
     * false for any other kind. Runs on the broker's delivery thread: performing the action does not wait there.
     */
    boolean received(String kind, byte[] body) {
        if (kind.equals(requestKind)) {
            // off the delivering thread, which also brings room messages and the answers says wait for
            adapter.completions.execute(() -> perform(body));
            return true;
        }
        if (kind.equals(resultKind)) {
            answered(body);
            return true;
        }
        if (kind.equals(presenceKind)) {
            present(body);
            return true;
        }
        return false;
    }

    /** Starts telling the other instances, every {@link #PRESENCE_MILLIS}, which bots are connected here. */
    void start() {
        announcer = Thread.ofVirtual().name("pulsebus-" + adapter.platform() + "-presence").start(() -> {
            try {
                while (!Thread.currentThread().isInterrupted()) {
                    announce();
                    Thread.sleep(PRESENCE_MILLIS);
                }
            } catch (InterruptedException e) {
                // stopped
            }
        });
    }

    void stop() {
        Thread t = announcer;
        if (t != null) {
            t.interrupt();
        }
    }

    private void announce() {
        ObjectNode said = Json.MAPPER.createObjectNode().put("instance", cluster.instance());
        com.fasterxml.jackson.databind.node.ArrayNode bots = said.putArray("bots");
        adapter.bots.reachableHere().forEach(bots::add);
        try {
            cluster.broadcast(presenceKind, Json.MAPPER.writeValueAsBytes(said));
        } catch (IOException | RuntimeException e) {
            badMessages.warn("This instance's OneBot bots were not announced to the cluster: {}", e.toString());
        }
    }

    private void present(byte[] body) {
        JsonNode said = read(body, "Another instance's list of OneBot bots");
        if (said == null) {
            return;
        }
        List<String> bots = new ArrayList<>();
        said.path("bots").forEach(b -> bots.add(b.asText()));
        Presence was = elsewhere.put(said.path("instance").asText(),
                new Presence(List.copyOf(bots), System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(3 * PRESENCE_MILLIS)));
        if (was == null || !was.bots().equals(bots)) {
            presenceChanges.incrementAndGet();
        }
    }

    /**
     * The bots connected to other instances (that said so lately): their actions made here are relayed. An
     * instance that stops saying so (it died) is forgotten after three of its {@link #PRESENCE_MILLIS}.
     */
    Set<String> reachableElsewhere() {
        forgetSilent();
        Set<String> out = new TreeSet<>();
        for (Presence p : elsewhere.values()) {
            out.addAll(p.bots());
        }
        return out;
    }

    /** Whether bot {@code selfId} is connected to another instance (that said so lately). */
    boolean reachableElsewhere(String selfId) {
        long now = System.nanoTime();
        for (Presence p : elsewhere.values()) {
            if (now - p.untilNanos() < 0 && p.bots().contains(selfId)) {
                return true;
            }
        }
        return false;
    }

    /** A number that changes whenever {@link #reachableElsewhere} may have. */
    long state() {
        forgetSilent();
        return presenceChanges.get();
    }

    private void forgetSilent() {
        long now = System.nanoTime();
        for (Map.Entry<String, Presence> e : elsewhere.entrySet()) {
            if (now - e.getValue().untilNanos() > 0 && elsewhere.remove(e.getKey(), e.getValue())) {
                presenceChanges.incrementAndGet();
            }
        }
    }

    private void perform(byte[] body) {
        JsonNode request = read(body, "A relayed OneBot action");
        if (request == null) {
            return;
        }
        String id = request.path("id").asText();
        String to = request.path("to").asText();
        String self = request.path("self").asText();
        String action = request.path("action").asText();
        if (!(request.get("params") instanceof ObjectNode params) || id.isEmpty() || to.isEmpty()) {
            badMessages.warn("A relayed OneBot action lacked its id, address or params: {}", request);
            return;
        }
        if (!adapter.takesActionsHere(self) || !cluster.claim(adapter.platform() + ":" + id, timeoutMillis + CLAIM_MARGIN_MILLIS)) {
            return; // another instance has the bot, or claimed the action first
        }
        adapter.metrics.relayedIn.increment();
        adapter.callHere(self, action, params).whenComplete((data, failure) -> {
            ObjectNode result = Json.MAPPER.createObjectNode().put("id", id).put("action", action);
            if (failure == null) {
                result.put("ok", true).set("data", data == null ? NullNode.getInstance() : data);
            } else {
                Throwable cause = failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null
                        ? failure.getCause() : failure;
                OneBotActionException x = cause instanceof OneBotActionException a ? a
                        : new OneBotActionException(action, OneBotActionException.Kind.FAILED, -1,
                                "OneBot action " + action + " failed: " + cause);
                result.put("ok", false).put("kind", x.kind().name()).put("retcode", x.retcode())
                        .put("message", x.getMessage() + " (on instance " + cluster.instance() + ")");
            }
            try {
                cluster.send(to, resultKind, Json.MAPPER.writeValueAsBytes(result));
            } catch (IOException | RuntimeException e) {
                badMessages.warn("The response to a relayed OneBot action was not sent back: {}", e.toString());
            }
        });
    }

    private void answered(byte[] body) {
        JsonNode result = read(body, "A relayed OneBot action's response");
        if (result == null) {
            return;
        }
        CompletableFuture<JsonNode> waiting = pending.remove(result.path("id").asText());
        if (waiting == null) {
            return; // timed out already
        }
        if (result.path("ok").asBoolean()) {
            waiting.complete(result.path("data"));
        } else {
            waiting.completeExceptionally(new OneBotActionException(result.path("action").asText(),
                    kind(result.path("kind").asText()), result.path("retcode").asLong(-1),
                    result.path("message").asText()));
        }
    }

    /** Another instance's message, or null (logged, at most once per interval) when it is not JSON. */
    private @Nullable JsonNode read(byte[] body, String what) {
        try {
            return Json.MAPPER.readTree(body);
        } catch (IOException e) {
            badMessages.warn("{} was not read: {}", what, e.toString());
            return null;
        }
    }

    private static OneBotActionException.Kind kind(@Nullable String name) {
        for (OneBotActionException.Kind k : OneBotActionException.Kind.values()) {
            if (k.name().equals(name)) {
                return k;
            }
        }
        return OneBotActionException.Kind.FAILED;
    }

    /** Actions waiting for another instance's answer (tests). */
    int pending() {
        return pending.size();
    }
}
