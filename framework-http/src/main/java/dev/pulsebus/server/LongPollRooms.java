package dev.pulsebus.server;

import dev.pulsebus.transcript.TranscriptRecord;
import io.micrometer.core.instrument.Timer;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.concurrent.EventExecutor;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Parked long-polls, by room. A waiting poll holds no thread: it is its channel, a {@link Waiter} and a
 * timer on the channel's event loop. When a message lands in a room, the room's waiters are answered
 * with everything after their {@code after}: one JSON body is encoded per distinct {@code after} (in a
 * busy room, one for all) and the same bytes are written to each waiter.
 *
 * <p>A waiter is answered exactly once, by whichever comes first: a message, its timeout (204), its
 * channel closing (nothing to answer), or shutdown (204, connection closed).
 */
final class LongPollRooms {

    private static final Logger LOG = LoggerFactory.getLogger(LongPollRooms.class);

    /** Reads the messages of a room after a seq: the chat history, newest {@code limit}, oldest first. */
    interface Reader {
        List<TranscriptRecord> after(String room, long afterSeq, int limit) throws Exception;
    }

    private final ConcurrentHashMap<String, List<Waiter>> rooms = new ConcurrentHashMap<>();
    private final AtomicInteger waiting = new AtomicInteger();
    private final ExecutorService work;
    @SuppressWarnings("NullAway.Init") // set by the server before it listens
    private Reader reader;
    private volatile boolean closed;
    @SuppressWarnings("NullAway.Init") // set by the server before it listens
    private volatile Timer deliveryTimer;

    LongPollRooms(ExecutorService work) {
        this.work = work;
    }

    void reader(Reader reader) {
        this.reader = reader;
    }

    int waiting() {
        return waiting.get();
    }

    private static final class Waiter {
        final ChannelHandlerContext ctx;
        final String room;
        final long after;
        final int limit;
        final boolean keepAlive;
        final AtomicBoolean done = new AtomicBoolean();
        @SuppressWarnings("NullAway.Init") // set right after construction, before the waiter is shared
        ScheduledFuture<?> timeout;
        @SuppressWarnings("NullAway.Init") // likewise
        ChannelFutureListener onClose;

        Waiter(ChannelHandlerContext ctx, String room, long after, int limit, boolean keepAlive) {
            this.ctx = ctx;
            this.room = room;
            this.after = after;
            this.limit = limit;
            this.keepAlive = keepAlive;
        }
    }

    /** Parks a poll; answers at once (on a virtual thread) when the room already has messages after {@code after}. */
    void park(ChannelHandlerContext ctx, String room, long after, int limit, long timeoutMs, boolean keepAlive) {
        if (closed) {
            Responses.empty(ctx, HttpResponseStatus.NO_CONTENT, false);
            return;
        }
        Waiter w = new Waiter(ctx, room, after, limit, keepAlive);
        rooms.compute(room, (k, list) -> {
            List<Waiter> l = list == null ? new ArrayList<>() : list;
            l.add(w);
            return l;
        });
        waiting.incrementAndGet();
        w.timeout = ctx.executor().schedule(() -> {
            if (claim(w)) {
                Responses.empty(ctx, HttpResponseStatus.NO_CONTENT, keepAlive);
            }
        }, timeoutMs, TimeUnit.MILLISECONDS);
        w.onClose = f -> claim(w);
        ctx.channel().closeFuture().addListener(w.onClose);
        work.execute(() -> {
            // Registered first, read second: a message committed in between is seen by one of the two.
            try {
                List<TranscriptRecord> ready = reader.after(room, after, limit);
                if (!ready.isEmpty()) {
                    // Written before the claim: a write that fails leaves the poll to the catch below.
                    ByteBuf body = Responses.messages(ctx, ready);
                    if (claim(w)) {
                        Responses.json(ctx, HttpResponseStatus.OK, body, keepAlive);
                    } else {
                        body.release();
                    }
                }
            } catch (Exception e) {
                if (claim(w)) {
                    Responses.error(ctx, HttpResponseStatus.SERVICE_UNAVAILABLE, "cannot read the room: " + e.getMessage(),
                            keepAlive);
                }
            }
        });
    }

    /** Whether polls wait in {@code room} now. */
    boolean waitingIn(String room) {
        return rooms.containsKey(room);
    }

    /** A message landed in {@code room}: answer the room's waiters (off the caller's thread). */
    void published(String room, TranscriptRecord record) {
        if (!rooms.containsKey(room)) {
            return;
        }
        long published = System.nanoTime();
        work.execute(() -> deliver(room, record.seq(), published));
    }

    /** Times each delivery: from the message's commit to the last waiter's answer written to its socket. */
    void deliveryTimer(Timer timer) {
        this.deliveryTimer = timer;
    }

    private void deliver(String room, long seq, long published) {
        List<Waiter> due = new ArrayList<>();
        rooms.computeIfPresent(room, (k, list) -> {
            List<Waiter> keep = new ArrayList<>();
            for (Waiter w : list) {
                if (w.done.get()) {
                    continue;
                }
                (w.after < seq ? due : keep).add(w);
            }
            return keep.isEmpty() ? null : keep;
        });
        // One body per distinct (after, limit): in a busy room, one for all.
        Map<List<Long>, List<Waiter>> byAfter = new HashMap<>();
        for (Waiter w : due) {
            byAfter.computeIfAbsent(List.of(w.after, (long) w.limit), a -> new ArrayList<>()).add(w);
        }
        for (Map.Entry<List<Long>, List<Waiter>> group : byAfter.entrySet()) {
            ByteBuf body;
            try {
                List<TranscriptRecord> ready = reader.after(room, group.getKey().get(0), group.getKey().get(1).intValue());
                body = Responses.messages(group.getValue().get(0).ctx, ready);
            } catch (Exception e) {
                LOG.warn("Cannot read room {} for {} waiting polls: {}", room, group.getValue().size(), e.toString());
                for (Waiter w : group.getValue()) {
                    if (claim(w)) {
                        Responses.error(w.ctx, HttpResponseStatus.SERVICE_UNAVAILABLE, "cannot read the room", w.keepAlive);
                    }
                }
                continue;
            }
            try {
                // One task per event loop writes to all of its waiters: two wake-ups for 1000 waiters,
                // not 1000 cross-thread writes.
                Map<EventExecutor, List<Waiter>> byLoop = new HashMap<>();
                for (Waiter w : group.getValue()) {
                    if (claim(w)) {
                        byLoop.computeIfAbsent(w.ctx.executor(), e -> new ArrayList<>()).add(w);
                    }
                }
                AtomicInteger unwritten = new AtomicInteger(byLoop.values().stream().mapToInt(List::size).sum());
                Timer timer = deliveryTimer;
                ChannelFutureListener written = f -> {
                    if (unwritten.decrementAndGet() == 0 && timer != null) {
                        timer.record(System.nanoTime() - published, TimeUnit.NANOSECONDS);
                    }
                };
                for (Map.Entry<EventExecutor, List<Waiter>> loop : byLoop.entrySet()) {
                    ByteBuf shared = body.retain();
                    try {
                        loop.getKey().execute(() -> {
                            try {
                                for (Waiter w : loop.getValue()) {
                                    Responses.write(w.ctx, HttpResponseStatus.OK, Responses.JSON,
                                            shared.retainedDuplicate(), w.keepAlive).addListener(written);
                                }
                            } finally {
                                shared.release();
                            }
                        });
                    } catch (RejectedExecutionException e) { // the loop is shutting down, and its channels with it
                        shared.release();
                        for (Waiter w : loop.getValue()) {
                            w.ctx.channel().close();
                        }
                    }
                }
            } finally {
                body.release();
            }
        }
    }

    private boolean claim(Waiter w) {
        if (!w.done.compareAndSet(false, true)) {
            return false;
        }
        waiting.decrementAndGet();
        if (w.timeout != null) {
            w.timeout.cancel(false);
        }
        if (w.onClose != null) { // a keep-alive client polls again and again: do not pile up listeners
            w.ctx.channel().closeFuture().removeListener(w.onClose);
        }
        rooms.computeIfPresent(w.room, (k, list) -> {
            list.remove(w);
            return list.isEmpty() ? null : list;
        });
        return true;
    }

    /** Answers every waiting poll with 204 and closes its connection; later polls get the same. */
    void releaseAll() {
        closed = true;
        for (String room : List.copyOf(rooms.keySet())) {
            List<Waiter> snapshot = new ArrayList<>();
            rooms.computeIfPresent(room, (k, list) -> {
                snapshot.addAll(list);
                return list;
            });
            for (Waiter w : snapshot) {
                if (claim(w)) {
                    Responses.empty(w.ctx, HttpResponseStatus.NO_CONTENT, false);
                }
            }
        }
    }
}
