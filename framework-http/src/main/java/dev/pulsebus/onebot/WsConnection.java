package dev.pulsebus.onebot;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulsebus.internal.Json;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * One OneBot WebSocket, either side (the implementation connected to us, or we to it): the actions in
 * flight on it, matched to their responses by {@code echo}, each failed after the action timeout, all
 * failed at once when the connection closes; and the heartbeat watch, which closes a connection whose
 * heartbeats stop for twice their interval. At most {@link #MAX_IN_FLIGHT} actions wait for a response;
 * one more is refused (counted). Calls are thread-safe and take no lock; the heartbeat state is
 * confined to the channel's event loop.
 */
final class WsConnection extends Link {

    /** What the connection serves (v11's {@code X-Client-Role}; v12 and forward connections are universal). */
    enum Role { UNIVERSAL, API, EVENT }

    static final int MAX_IN_FLIGHT = 4096;

    /** An action waiting for its response; its timer is set once it is in the table (so it cannot fire before). */
    private static final class Pending {
        final String action;
        final CompletableFuture<JsonNode> result;
        volatile @Nullable ScheduledFuture<?> timer;

        Pending(String action, CompletableFuture<JsonNode> result) {
            this.action = action;
            this.result = result;
        }

        void cancel() {
            ScheduledFuture<?> t = timer;
            if (t != null) {
                t.cancel(false);
            }
        }
    }

    final Channel channel;
    final Role role;
    /** The bot the connection named when it opened ({@code X-Self-ID}); empty when it named none. */
    final String selfHint;
    private final Protocol protocol;
    private final OneBotMetrics metrics;
    private final Executor completions;
    private final long timeoutMs;
    private final Map<String, Pending> pending = new ConcurrentHashMap<>();
    private final AtomicLong echoes = new AtomicLong();
    /** The bots this connection counts as online (Bots.Bot.open); few, so a list. Event loop only. */
    final List<Bots.Bot> bots = new ArrayList<>(1);
    private long lastBeatNanos;
    private long beatWindowNanos;
    private boolean watching;

    WsConnection(Channel channel, Role role, String selfHint, Protocol protocol, OneBotMetrics metrics,
                 Executor completions, long timeoutMs) {
        this.channel = channel;
        this.role = role;
        this.selfHint = selfHint;
        this.protocol = protocol;
        this.metrics = metrics;
        this.completions = completions;
        this.timeoutMs = timeoutMs;
    }

    @Override
    CompletableFuture<JsonNode> call(String action, ObjectNode params, String selfId, @Nullable String botPlatform) {
        CompletableFuture<JsonNode> result = new CompletableFuture<>();
        if (!channel.isActive()) {
            result.completeExceptionally(OneBotActionException.refused(action, "the connection is closed"));
            return result;
        }
        if (pending.size() >= MAX_IN_FLIGHT) {
            result.completeExceptionally(OneBotActionException.refused(action, MAX_IN_FLIGHT
                    + " actions already wait for a response on this connection"));
            return result;
        }
        String echo = Long.toString(echoes.incrementAndGet());
        byte[] frame;
        try {
            frame = Json.MAPPER.writeValueAsBytes(protocol.request(action, params, echo, selfId, botPlatform));
        } catch (JsonProcessingException e) {
            result.completeExceptionally(e);
            return result;
        }
        Pending p = new Pending(action, result);
        pending.put(echo, p);
        p.timer = channel.eventLoop().schedule(() -> timedOut(echo), timeoutMs, TimeUnit.MILLISECONDS);
        metrics.frame(OneBotMetrics.Kind.ACTION);
        channel.writeAndFlush(new TextWebSocketFrame(Unpooled.wrappedBuffer(frame))).addListener(f -> {
            if (!f.isSuccess()) {
                fail(echo, OneBotActionException.disconnected(action));
            }
        });
        return result;
    }

    /** A response frame: completes the action it answers (on a completion thread). */
    void response(JsonNode frame) {
        Pending p = pending.remove(JsonValues.id(frame, "echo"));
        if (p == null) {
            metrics.bad(OneBotMetrics.Bad.UNMATCHED, "a response whose echo matches no action in flight "
                    + "(timed out already, or not ours)");
            return;
        }
        p.cancel();
        completions.execute(() -> Link.complete(p.action, frame, p.result));
    }

    private void timedOut(String echo) {
        fail(echo, OneBotActionException.timeout(actionOf(echo), timeoutMs));
    }

    private String actionOf(String echo) {
        Pending p = pending.get(echo);
        return p == null ? "?" : p.action;
    }

    private void fail(String echo, OneBotActionException e) {
        Pending p = pending.remove(echo);
        if (p != null) {
            p.cancel();
            completions.execute(() -> p.result.completeExceptionally(e));
        }
    }

    /** The connection is gone: every action in flight fails now. */
    void closed() {
        for (String echo : pending.keySet()) {
            Pending p = pending.get(echo);
            if (p != null) {
                fail(echo, OneBotActionException.disconnected(p.action));
            }
        }
    }

    int inFlight() {
        return pending.size();
    }

    /** A heartbeat with {@code intervalMs} until the next: the connection is closed if none comes in twice that. */
    void beat(long intervalMs) {
        lastBeatNanos = System.nanoTime();
        beatWindowNanos = TimeUnit.MILLISECONDS.toNanos(2 * intervalMs);
        if (!watching) {
            watching = true;
            channel.eventLoop().schedule(this::checkBeat, beatWindowNanos, TimeUnit.NANOSECONDS);
        }
    }

    private void checkBeat() {
        if (!channel.isActive()) {
            return;
        }
        long since = System.nanoTime() - lastBeatNanos;
        if (since >= beatWindowNanos) {
            metrics.bad(OneBotMetrics.Bad.INVALID, "no heartbeat for twice its interval ("
                    + TimeUnit.NANOSECONDS.toMillis(beatWindowNanos) + " ms): connection " + channel.remoteAddress()
                    + " closed");
            channel.close();
        } else {
            channel.eventLoop().schedule(this::checkBeat, beatWindowNanos - since, TimeUnit.NANOSECONDS);
        }
    }
}
