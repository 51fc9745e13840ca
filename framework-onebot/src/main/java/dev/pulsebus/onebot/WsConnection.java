package dev.pulsebus.onebot;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pulsebus.platform.WebSocketSession;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * One OneBot WebSocket, either side (the implementation connected to us, or we to it): the actions in
 * flight on it, matched to their responses by {@code echo}, each failed after the action timeout, all
 * failed at once when the connection closes; and the heartbeat watch, which closes a connection whose
 * heartbeats stop for twice their interval.
 *
 * <p>Back-pressure, not loss: at most {@link #MAX_IN_FLIGHT} actions are out waiting for their responses (the
 * window); one more waits, in order and within its own timeout, until a response opens the window, and while
 * any waits the connection is read slowly ({@link WebSocketSession#readSlowly}: the implementation's events
 * slow down while its responses still come in). Likewise while the connection is unwritable (the
 * implementation does not read what it is sent). An action still waiting at its timeout fails: as a timeout
 * when it waited for the window, as refused (saying the connection was not writable) when it waited for the
 * connection; one that would make the waiting frames pass the connection's write limit
 * ({@code server.max_pending_write_bytes}) is refused at once (counted), the only loss, and a bounded one.
 * Calls are thread-safe and take no lock; the heartbeat state and the waiting actions are confined to the
 * connection's own thread ({@link WebSocketSession#executor()}).
 */
final class WsConnection extends Link {

    /** What the connection serves (v11's {@code X-Client-Role}; v12 and forward connections are universal). */
    enum Role { UNIVERSAL, API, EVENT }

    static final int MAX_IN_FLIGHT = 4096;

    /** An action waiting for its response; its timer is set once it is in the table (so it cannot fire before). */
    private static final class Pending {
        final String action;
        final String echo;
        final CompletableFuture<JsonNode> result;
        volatile @Nullable ScheduledFuture<?> timer;
        /** Its frame while it waits for the window or the connection; null once written. Event loop only. */
        byte @Nullable [] unsent;
        /** It holds a place in the window (from just before it is written until it is answered or failed). */
        volatile boolean counted;

        Pending(String action, String echo, CompletableFuture<JsonNode> result) {
            this.action = action;
            this.echo = echo;
            this.result = result;
        }

        void cancel() {
            ScheduledFuture<?> t = timer;
            if (t != null) {
                t.cancel(false);
            }
        }
    }

    final WebSocketSession session;
    final Role role;
    /** The bot the connection named when it opened ({@code X-Self-ID}); empty when it named none. */
    final String selfHint;
    private final Protocol protocol;
    private final OneBotMetrics metrics;
    private final Executor completions;
    private final long timeoutMs;
    private final Map<String, Pending> pending = new ConcurrentHashMap<>();
    private final AtomicLong echoes = new AtomicLong();
    /** Actions written and not yet answered: at most {@link #MAX_IN_FLIGHT}, the window. */
    private final AtomicInteger inFlight = new AtomicInteger();
    /** Whether reading the connection is slowed because actions wait. Event loop only. */
    private boolean slowed;
    /** Actions waiting for the window or the connection, in the order they were called. Event loop only. */
    private final ArrayDeque<Pending> unwritten = new ArrayDeque<>();
    /** The bytes of their frames, at most the connection's write limit. Event loop only. */
    private long unwrittenBytes;
    /** Calls on their way to {@link #unwritten} or in it: while any is, a new call queues behind them. */
    private final AtomicInteger waiting = new AtomicInteger();
    /** The bots this connection counts as online (Bots.Bot.open); few, so a list. Event loop only. */
    final List<Bots.Bot> bots = new ArrayList<>(1);
    private long lastBeatNanos;
    private long beatWindowNanos;
    private boolean watching;

    WsConnection(WebSocketSession session, Role role, String selfHint, Protocol protocol, OneBotMetrics metrics,
                 Executor completions, long timeoutMs) {
        this.session = session;
        this.role = role;
        this.selfHint = selfHint;
        this.protocol = protocol;
        this.metrics = metrics;
        this.completions = completions;
        this.timeoutMs = timeoutMs;
    }

    @Override
    CompletableFuture<JsonNode> call(Protocol.Action action, String selfId, @Nullable String botPlatform) {
        CompletableFuture<JsonNode> result = new CompletableFuture<>();
        if (!session.isOpen()) {
            result.completeExceptionally(OneBotActionException.refused(action.name(), "the connection is closed"));
            return result;
        }
        String echo = Long.toString(echoes.incrementAndGet());
        byte[] frame;
        try {
            frame = protocol.frame(action, echo, selfId, botPlatform);
        } catch (IOException e) {
            result.completeExceptionally(e);
            return result;
        }
        Pending p = new Pending(action.name(), echo, result);
        pending.put(echo, p);
        p.timer = session.executor().schedule(() -> timedOut(echo), timeoutMs, TimeUnit.MILLISECONDS);
        if (waiting.get() == 0 && session.isWritable() && take(p)) {
            write(p, frame);
        } else { // behind those that wait, in order
            waiting.incrementAndGet();
            session.executor().execute(() -> hold(p, frame));
        }
        return result;
    }

    /** Takes a place in the window for {@code p}; false when the window is full. */
    private boolean take(Pending p) {
        if (inFlight.incrementAndGet() <= MAX_IN_FLIGHT) {
            p.counted = true;
            return true;
        }
        inFlight.decrementAndGet();
        return false;
    }

    /** {@code p} is answered or failed: its place in the window goes to the next waiting action. Event loop. */
    private void release(Pending p) {
        if (p.counted) {
            p.counted = false;
            inFlight.decrementAndGet();
            drain();
        }
    }

    private void write(Pending p, byte[] frame) {
        metrics.frame(OneBotMetrics.Kind.ACTION);
        session.sendText(frame).whenComplete((sent, e) -> {
            if (e != null) {
                fail(p.echo, OneBotActionException.disconnected(p.action));
            }
        });
    }

    /**
     * On the event loop: {@code p} waits until the window has room and the connection is writable (its timeout
     * running), or goes now when both hold and nothing waits before it; refused when the frames waiting pass
     * the connection's write limit.
     */
    private void hold(Pending p, byte[] frame) {
        if (pending.get(p.echo) != p) { // timed out or failed already
            waiting.decrementAndGet();
            return;
        }
        if (!session.isOpen()) {
            waiting.decrementAndGet();
            fail(p.echo, OneBotActionException.disconnected(p.action));
            return;
        }
        if (unwritten.isEmpty() && session.isWritable() && take(p)) {
            waiting.decrementAndGet();
            write(p, frame);
            return;
        }
        long limit = session.maxPendingBytes();
        if (unwrittenBytes + frame.length > limit) {
            waiting.decrementAndGet();
            fail(p.echo, OneBotActionException.refused(p.action, (session.isWritable()
                    ? MAX_IN_FLIGHT + " actions wait for their responses"
                    : "the connection is not writable (the implementation does not read what it is sent)")
                    + " and " + unwrittenBytes + " bytes of actions already wait to go out, past the limit of " + limit
                    + " (server.max_pending_write_bytes)"));
            return;
        }
        p.unsent = frame;
        unwrittenBytes += frame.length;
        unwritten.add(p);
        slow(true);
    }

    /** The connection is writable again: the actions that waited go out, in order, while there is room. */
    void writable() {
        drain();
    }

    /** The waiting actions go out, in order, while the window has room and the connection stays writable. Event loop. */
    private void drain() {
        Pending p;
        while (session.isWritable() && (p = unwritten.peek()) != null) {
            byte[] frame = p.unsent;
            if (frame != null && !take(p)) {
                break; // the window is full: the next response opens it
            }
            unwritten.poll();
            waiting.decrementAndGet();
            if (frame != null) {
                p.unsent = null;
                unwrittenBytes -= frame.length;
                // Sent after waiting: its response gets the whole timeout, as one sent at once does (a wait
                // near the timeout would otherwise leave the implementation no time to answer it).
                p.cancel();
                String echo = p.echo;
                p.timer = session.executor().schedule(() -> timedOut(echo), timeoutMs, TimeUnit.MILLISECONDS);
                write(p, frame);
            }
        }
        slow(!unwritten.isEmpty());
    }

    /** Reads the connection slowly while actions wait, as it comes otherwise. Event loop. */
    private void slow(boolean slow) {
        if (slow != slowed && session.isOpen()) {
            slowed = slow;
            session.readSlowly(slow);
        }
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
        release(p);
    }

    private void timedOut(String echo) {
        Pending p = pending.get(echo);
        byte[] frame = p == null ? null : p.unsent;
        if (p != null && frame != null) { // never written
            p.unsent = null;
            unwrittenBytes -= frame.length;
            if (unwritten.remove(p)) {
                waiting.decrementAndGet();
            }
            if (session.isWritable()) { // it waited for the window
                fail(echo, OneBotActionException.timeoutWaiting(p.action, timeoutMs, MAX_IN_FLIGHT));
            } else {
                fail(echo, OneBotActionException.refused(p.action, "the connection was not writable for " + timeoutMs
                        + " ms (action_timeout_ms): the implementation does not read what it is sent"));
            }
            drain();
            return;
        }
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
            release(p);
        }
    }

    /** The connection is gone: every action in flight fails now. */
    void closed() {
        unwritten.clear();
        unwrittenBytes = 0;
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
            session.executor().schedule(this::checkBeat, beatWindowNanos, TimeUnit.NANOSECONDS);
        }
    }

    private void checkBeat() {
        if (!session.isOpen()) {
            return;
        }
        long since = System.nanoTime() - lastBeatNanos;
        if (since >= beatWindowNanos) {
            metrics.bad(OneBotMetrics.Bad.INVALID, "no heartbeat for twice its interval ("
                    + TimeUnit.NANOSECONDS.toMillis(beatWindowNanos) + " ms): connection " + session.remoteAddress()
                    + " closed");
            session.close(1000, "no heartbeat");
        } else {
            session.executor().schedule(this::checkBeat, beatWindowNanos - since, TimeUnit.NANOSECONDS);
        }
    }
}
