package dev.pulsebus.pipeline;

import dev.pulsebus.internal.FailureLog;
import dev.pulsebus.internal.RunningHandler;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where an adapter's inbound events wait for the pipeline: a fixed number of lanes, each a queue of at most
 * {@code capacity} items and a virtual thread that hands them to {@code handler} in order; an item's lane is
 * chosen by its key (its chat), so one chat's events are handled in the order they came, and never on an I/O
 * thread. {@link #offer} never waits: a full lane refuses (the caller counts it).
 *
 * <p><b>Stalls.</b> Each worker writes when it started its current item (a volatile write per item; no lock,
 * nothing allocated), which the pipeline's {@link HandlerWatch} scans. When a handler runs past
 * {@code bus.stall_ms}, its worker is left to it and a fresh worker takes over the lane's queue, so the
 * lane's other chats go on; the stalled chat's later items are set aside (at most {@code capacity} per lane,
 * more are dropped and counted) and handled, in order, by the stalled worker once its handler returns.
 *
 * <p><b>Settled.</b> An optional callback learns, once per item taken, when the item no longer waits on the
 * lanes: it has been handled (or its handler threw), or it has been given up on: its handler stalled, or it
 * was set aside behind a stalled handler of its chat (it still runs once that returns; no second call), or it
 * was dropped. An item still queued when the lanes stop is never settled. For an adapter that confirms what
 * it received only once it is settled (Telegram's offset).
 * Thread-safe.
 */
public final class ChatLanes<T> {

    private static final Logger LOG = LoggerFactory.getLogger(ChatLanes.class);
    /**
     * Queued by {@link #stop} to wake a worker waiting on an empty lane (a worker waits untimed: a timed wait
     * costs a virtual thread a timer per wait, some 90 bytes and a few microseconds at every item).
     */
    private static final Object STOP = new Object();

    private final String name;
    private final Function<? super T, ?> keyOf;
    private final Consumer<? super T> handler;
    private final Consumer<? super T> settled;
    private final List<Lane> lanes;
    private final int capacity;
    private final LongAdder droppedAside = new LongAdder();
    private final FailureLog asideFull = FailureLog.warning(LOG, Duration.ofMinutes(1));
    private volatile HandlerWatch watch = HandlerWatch.NONE;
    private volatile boolean stopping;

    /**
     * @param name     the workers' thread name, and how stall reports name the lanes
     * @param keyOf    an item's ordering key (its chat); equal keys share a lane
     * @param handler  what each item goes through (the pipeline); what it throws is logged
     */
    public ChatLanes(String name, int lanes, int capacity, Function<? super T, ?> keyOf, Consumer<? super T> handler) {
        this(name, lanes, capacity, keyOf, handler, item -> { });
    }

    /**
     * As above, and {@code settled} is told of each item taken once it no longer waits on the lanes (see the
     * class comment), on a worker's or the watch's thread; it must be quick and never throw.
     */
    public ChatLanes(String name, int lanes, int capacity, Function<? super T, ?> keyOf, Consumer<? super T> handler,
                     Consumer<? super T> settled) {
        if (lanes < 1 || capacity < 1) {
            throw new IllegalArgumentException("lanes and capacity must be positive, were " + lanes + ", " + capacity);
        }
        this.name = Objects.requireNonNull(name, "name");
        this.keyOf = Objects.requireNonNull(keyOf, "keyOf");
        this.handler = Objects.requireNonNull(handler, "handler");
        this.settled = Objects.requireNonNull(settled, "settled");
        this.capacity = capacity;
        List<Lane> made = new ArrayList<>(lanes);
        for (int i = 0; i < lanes; i++) {
            made.add(new Lane(i));
        }
        this.lanes = List.copyOf(made);
    }

    /** Starts a worker per lane, its runs watched by {@code inbound}'s {@link Inbound#handlerWatch()}. Idempotent. */
    public synchronized void start(Inbound inbound) {
        this.watch = inbound.handlerWatch();
        for (Lane lane : lanes) {
            synchronized (lane) {
                if (lane.worker == null) {
                    lane.worker = new Worker(lane);
                }
            }
        }
    }

    /** Queues {@code item} on its key's lane; false when that lane is full or the lanes stop. */
    public boolean offer(T item) {
        return !stopping && laneOf(keyOf.apply(item)).offer(item);
    }

    /** Whether the lane of {@code key} has room for one more item now. */
    public boolean hasRoom(Object key) {
        return !stopping && laneOf(key).queue.remainingCapacity() > 0;
    }

    /** Items of stalled chats dropped because their lane had {@code capacity} set aside already. */
    public long droppedAside() {
        return droppedAside.sum();
    }

    private Lane laneOf(Object key) {
        return lanes.get(Math.floorMod(key.hashCode(), lanes.size()));
    }

    /**
     * Refuses new items and lets each lane's worker finish what its queue holds, waiting at most {@code timeout}
     * in all; returns whether they all did (a worker left to a stalled handler is not waited for).
     */
    public boolean stop(Duration timeout) throws InterruptedException {
        stopping = true;
        for (Lane lane : lanes) {
            lane.wake();
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        for (Lane lane : lanes) {
            Worker w;
            synchronized (lane) {
                w = lane.worker;
            }
            if (w != null && !w.thread.join(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())))) {
                return false;
            }
        }
        return true;
    }

    /** One lane: its queue, its worker, and the items of its stalled chats set aside. */
    private final class Lane {
        final int index;
        final ArrayBlockingQueue<T> queue = new ArrayBlockingQueue<>(capacity);
        /**
         * When each queued item was offered, in the queue's order: written before the item is queued (under this
         * lane's lock, so that offers stamp in their queue order), read by the worker that takes it (the queue's
         * lock orders the two). One per item: every offer that queues stamps once, every take reads once.
         */
        private final long[] stamps = new long[capacity + 1]; // the queue full, and the one just taken not yet read
        private int stampTail;
        private int stampHead;
        /** The worker taking from the queue. Guarded by this. */
        @Nullable Worker worker;
        /** Per stalled chat, its items taken from the queue meanwhile. Guarded by this. */
        final Map<Object, ArrayDeque<T>> aside = new HashMap<>();
        int asideCount;
        /** Whether {@link #aside} has a chat: read per item without the lock. */
        volatile boolean anyStalled;

        Lane(int index) {
            this.index = index;
        }

        synchronized boolean offer(T item) {
            if (queue.remainingCapacity() == 0) {
                return false;
            }
            stamps[stampTail] = System.nanoTime();
            stampTail = stampTail + 1 == stamps.length ? 0 : stampTail + 1;
            return queue.offer(item); // only the worker takes: the room seen is still there
        }

        /**
         * Queues {@link #STOP} behind what the queue holds, when it has room: a full queue has no worker waiting
         * on it, and its worker finds {@link #stopping} set once it has taken what is there.
         */
        @SuppressWarnings("unchecked") // never handed on: the worker takes it for what it is
        synchronized void wake() {
            if (queue.remainingCapacity() > 0) {
                stamps[stampTail] = System.nanoTime();
                stampTail = stampTail + 1 == stamps.length ? 0 : stampTail + 1;
                queue.offer((T) STOP);
            }
        }

        /** How long the item just taken from the queue waited there. The taking worker's thread only. */
        long waited() {
            long stamp = stamps[stampHead];
            stampHead = stampHead + 1 == stamps.length ? 0 : stampHead + 1;
            return System.nanoTime() - stamp;
        }

        /**
         * Claims {@code w}'s run if it has stalled; then, unless the lane moved on from {@code w} already (a set-aside
         * item stalled again), leaves {@code w} to it, sets its chat's next items aside for it, and starts a fresh
         * worker on the queue. Under the lane's lock, so {@code w}, ending its run meanwhile, finds its chat's entry.
         */
        synchronized boolean stalled(Worker w, long nanoTime, long stallNanos) {
            if (worker == w && stopping) {
                return false; // the lane's worker finishes the queue: the stop's own timeout bounds the wait
            }
            if (!w.slot.claim(nanoTime, stallNanos)) {
                return false;
            }
            if (worker == w) { // its item was not given up before (an item set aside was, when set aside)
                T item = w.current;
                if (item != null) {
                    settled.accept(item);
                }
                Object key = w.slot.key();
                if (key != null) {
                    aside.putIfAbsent(key, new ArrayDeque<>());
                    anyStalled = true;
                }
                worker = new Worker(this);
            }
            return true;
        }

        /** Sets {@code item} aside when its chat is stalled; false when it is not (the caller handles it). */
        synchronized boolean setAside(T item, Object key) {
            ArrayDeque<T> waiting = aside.get(key);
            if (waiting == null) {
                return false;
            }
            settled.accept(item); // given up on: it waits for a handler that may never return
            if (asideCount >= capacity) {
                droppedAside.increment();
                asideFull.warn("Lane {} of {} dropped an event of stalled chat {}: {} events wait for stalled chats "
                        + "({} dropped in all)", index, name, key, capacity, droppedAside.sum());
                return true;
            }
            waiting.add(item);
            asideCount++;
            return true;
        }

        /** The next item set aside for {@code key}; null, and the chat no longer stalled, when none is left. */
        synchronized @Nullable T nextAside(Object key) {
            ArrayDeque<T> waiting = aside.get(key);
            T next = waiting == null ? null : waiting.poll();
            if (next == null) {
                aside.remove(key);
                anyStalled = !aside.isEmpty();
            } else {
                asideCount--;
            }
            return next;
        }
    }

    /** A lane's virtual thread: takes the queue's items until the lanes stop, or it is left to a stalled run. */
    private final class Worker implements Runnable {
        final Lane lane;
        final Thread thread;
        @SuppressWarnings("NullAway.Init") // set first thing on its thread, before it is watched
        RunningHandler slot;
        /** The item it runs: written before {@link RunningHandler#begin}, read by the watch after a claim. */
        @Nullable T current;

        Worker(Lane lane) {
            this.lane = lane;
            this.thread = Thread.ofVirtual().name(name + "-" + lane.index).unstarted(this);
            thread.start();
        }

        @Override
        public void run() {
            slot = RunningHandler.forThisThread();
            HandlerWatch w = watch;
            w.watch(slot, name + "-" + lane.index, (now, stallNanos) -> lane.stalled(this, now, stallNanos));
            try {
                while (true) {
                    T item;
                    try {
                        // stopping: what is left, without waiting; else a wait that stop() ends with STOP
                        item = stopping ? lane.queue.poll() : lane.queue.take();
                    } catch (InterruptedException e) {
                        continue; // an interrupt meant for a handler that had returned
                    }
                    if (item == null) {
                        return; // stopping, and nothing is left
                    }
                    long waited = lane.waited();
                    if (item == STOP) {
                        continue; // stopping is set: what is behind it is taken without waiting
                    }
                    slot.queued(waited);
                    Object key = keyOf.apply(item);
                    if (lane.anyStalled && lane.setAside(item, key)) {
                        continue;
                    }
                    if (handle(item, key, true)) { // left to its stalled run: now this chat's items set aside meanwhile
                        for (T next = lane.nextAside(key); next != null; next = lane.nextAside(key)) {
                            handle(next, key, false); // settled when set aside
                        }
                        return;
                    }
                }
            } finally {
                w.forget(slot);
            }
        }

        /**
         * Hands {@code item} on, and settles it after unless its run was claimed (settled then) or {@code settle}
         * is false; returns whether its run stalled and was claimed (this worker is left to it).
         */
        private boolean handle(T item, Object key, boolean settle) {
            current = item;
            slot.begin(key);
            try {
                handler.accept(item);
            } catch (Throwable t) { // the pipeline counts its own failures; this is a bug of the adapter's
                LOG.error("An inbound event failed on lane {} of {}", lane.index, name, t);
            }
            boolean claimed = slot.end();
            if (!claimed) { // a claimed run's item is read by the watch under the lane's lock: left as it is
                current = null;
                if (settle) {
                    settled.accept(item);
                }
            }
            if (claimed) {
                LOG.info("The stalled handler on chat {} (lane {} of {}) returned", key, lane.index, name);
            }
            Thread.interrupted(); // an unload's interrupt was for that handler, not the next
            return claimed;
        }
    }
}
