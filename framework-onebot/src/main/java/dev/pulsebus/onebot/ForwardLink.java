package dev.pulsebus.onebot;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * The actions of a forward connection, which may be down: while it is, they wait in a queue of at most
 * {@code capacity} (one more is refused, counted as {@code queue_full}) and go out in the order they came
 * once it is back; their action timeout starts when they are sent. While it is up, a call goes straight to
 * the connection without a lock; the lock is taken only while it is down or draining the queue.
 */
final class ForwardLink extends Link {

    private record Queued(Protocol.Action action, String selfId, @Nullable String botPlatform,
                          CompletableFuture<JsonNode> result) {
    }

    private final int capacity;
    private final OneBotMetrics metrics;
    private final ArrayDeque<Queued> queue = new ArrayDeque<>();
    private volatile @Nullable WsConnection current;
    private volatile boolean draining;
    /** Guarded by {@code this}. */
    private boolean stopped;

    ForwardLink(int capacity, OneBotMetrics metrics) {
        this.capacity = capacity;
        this.metrics = metrics;
    }

    @Override
    CompletableFuture<JsonNode> call(Protocol.Action action, String selfId, @Nullable String botPlatform) {
        WsConnection c = current;
        if (c != null && !draining) {
            return c.call(action, selfId, botPlatform);
        }
        synchronized (this) {
            c = current;
            if (c != null && !draining) {
                return c.call(action, selfId, botPlatform);
            }
            if (stopped) {
                return CompletableFuture.failedFuture(OneBotActionException.refused(action.name(), "the adapter stopped"));
            }
            if (queue.size() >= capacity) {
                metrics.bad(OneBotMetrics.Bad.QUEUE_FULL, "the forward connection is down and " + capacity
                        + " actions already wait for it; " + action.name() + " refused");
                return CompletableFuture.failedFuture(OneBotActionException.refused(action.name(),
                        "the connection is down and its queue of " + capacity + " is full"));
            }
            Queued q = new Queued(action, selfId, botPlatform, new CompletableFuture<>());
            queue.add(q);
            return q.result;
        }
    }

    int queued() {
        synchronized (this) {
            return queue.size();
        }
    }

    /** The connection is up: what waited goes out, in order, before any new call. */
    void connected(WsConnection c) {
        synchronized (this) {
            current = c;
            draining = true;
        }
        while (true) {
            Queued q;
            synchronized (this) {
                if (current != c) {
                    return; // lost again: the rest keeps waiting
                }
                q = queue.poll();
                if (q == null) {
                    draining = false;
                    return;
                }
            }
            c.call(q.action, q.selfId, q.botPlatform).whenComplete((v, e) -> {
                if (e == null) {
                    q.result.complete(v);
                } else {
                    q.result.completeExceptionally(e);
                }
            });
        }
    }

    /** The adapter stops: what still waits fails as refused. */
    void stop() {
        synchronized (this) {
            stopped = true;
            current = null;
            for (Queued q : queue) {
                q.result.completeExceptionally(OneBotActionException.refused(q.action.name(), "the adapter stopped"));
            }
            queue.clear();
        }
    }

    void disconnected(WsConnection c) {
        synchronized (this) {
            if (current == c) {
                current = null;
                draining = false;
            }
        }
    }
}
