package dev.pulsebus.bus;

import dev.pulsebus.internal.FailureLog;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs blocking handler tasks on virtual threads, one at a time per ordering key, with a global bound.
 *
 * <h2>Bound</h2>
 * {@code pending} counts tasks accepted and not yet finished, queued or running, across all keys. A task
 * that would exceed {@code maxPending} waits up to {@code overflowWaitNanos} for room, then is dropped:
 * counted in {@link #rejected()} and warned about at most once per {@link #WARN_INTERVAL_NANOS}.
 *
 * <h2>Per-key order</h2>
 * Each busy key has a {@link Lane}: a queue and a work counter {@code wip} (tasks announced, not
 * finished). The submitter that moves {@code wip} from 0 to 1 starts the lane's drainer, a virtual thread
 * that runs tasks until {@code wip} returns to 0. An idle lane retires by moving {@code wip} from 0 to -1
 * and leaves the map, so the map holds busy keys only; a submitter that finds a retired lane fetches a
 * new one. A new drainer for a key starts only after the previous one's last task finished, so tasks of
 * one key never overlap and run in submission order.
 *
 * <h2>No yielding</h2>
 * A drainer never waits with {@code Thread.yield()}: a yielding virtual thread keeps its carrier
 * runnable (and wakes the other carriers as it resubmits itself), so under CPU contention it takes the
 * core from the submitter it waits for. An idle drainer spins about a microsecond for more work of its
 * key, then retires; one waiting for a task counted but not yet enqueued spins as briefly, then parks in
 * short steps.
 */
final class BlockingLanes {

    private static final Logger LOG = LoggerFactory.getLogger(EventBus.class);
    static final long WARN_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);
    /** How long an idle drainer spins for more work of its key before it retires (about a microsecond). */
    private static final int LINGER_SPINS = 64;
    /** How long a drainer spins for a task counted but not yet enqueued before it parks in steps. */
    private static final int GAP_SPINS = 64;
    private static final long WAIT_STEP_NANOS = TimeUnit.MICROSECONDS.toNanos(50);

    private final ConcurrentHashMap<Object, Lane> lanes = new ConcurrentHashMap<>();
    private final AtomicInteger pending = new AtomicInteger();
    private final LongAdder rejected = new LongAdder();
    private final int maxPending;
    private final long overflowWaitNanos;
    private final FailureLog dropWarnings = FailureLog.warning(LOG, Duration.ofNanos(WARN_INTERVAL_NANOS));
    private volatile boolean closed;

    BlockingLanes(int maxPending, long overflowWaitNanos) {
        this.maxPending = maxPending;
        this.overflowWaitNanos = overflowWaitNanos;
    }

    /**
     * Accepts {@code task} to run on a virtual thread, after earlier tasks of the same {@code key} (or
     * unordered for a {@code null} key).
     *
     * @return {@code false} if it was dropped because the bound was reached or the lanes are closed
     */
    boolean submit(Object key, Runnable task) {
        if (closed || !reserve()) {
            reject();
            return false;
        }
        if (key == null) {
            start(() -> runOne(task));
            return true;
        }
        for (;;) {
            Lane lane = lanes.get(key);
            if (lane == null) {
                Lane fresh = new Lane(key);
                lane = lanes.putIfAbsent(key, fresh);
                lane = lane != null ? lane : fresh;
            }
            if (lane.offer(task)) {
                return true;
            }
            lanes.remove(key, lane); // retired: help it out of the map, then take a fresh lane
        }
    }

    private boolean reserve() {
        if (tryReserve()) {
            return true;
        }
        if (overflowWaitNanos <= 0) {
            return false;
        }
        long deadline = System.nanoTime() + overflowWaitNanos;
        while (System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(WAIT_STEP_NANOS);
            if (tryReserve()) {
                return true;
            }
        }
        return false;
    }

    private boolean tryReserve() {
        for (;;) {
            int p = pending.get();
            if (p >= maxPending) {
                return false;
            }
            if (pending.compareAndSet(p, p + 1)) {
                return true;
            }
        }
    }

    private void reject() {
        rejected.increment();
        dropWarnings.warn(closed
                ? "Event bus closed: blocking handler task dropped ({} dropped in all)"
                : "Blocking handlers are saturated ({} pending): task dropped ({} dropped in all)",
                closed ? rejected.sum() : maxPending, rejected.sum());
    }

    /** Runs one task; nothing it throws may stop a drainer or leak a permit. */
    private void runOne(Runnable task) {
        try {
            task.run();
        } catch (Throwable t) {
            LOG.error("Blocking task failed outside its handler", t);
        } finally {
            pending.decrementAndGet();
        }
    }

    private void start(Runnable r) {
        Threads.FACTORY.newThread(r).start();
    }

    /**
     * Stops accepting tasks, then waits up to {@code timeoutNanos} for the pending ones to finish and
     * their drainers to retire.
     */
    boolean close(long timeoutNanos) {
        closed = true;
        long deadline = System.nanoTime() + timeoutNanos;
        while (pending.get() > 0 || !lanes.isEmpty()) {
            if (System.nanoTime() - deadline >= 0) {
                return false;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
        return true;
    }

    long rejected() {
        return rejected.sum();
    }

    int pending() {
        return pending.get();
    }

    int maxPending() {
        return maxPending;
    }

    /** Busy keys, for tests: retired lanes leave the map. */
    int busyKeys() {
        return lanes.size();
    }

    /** Made when the first blocking task starts: a bus without blocking handlers never loads it. */
    private static final class Threads {
        static final ThreadFactory FACTORY = Thread.ofVirtual().name("pulsebus-blocking-", 0).factory();
    }

    private final class Lane implements Runnable {
        private final Object key;
        private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
        /** Tasks announced and not finished; -1 once retired. */
        private final AtomicInteger wip = new AtomicInteger();

        Lane(Object key) {
            this.key = key;
        }

        boolean offer(Runnable task) {
            for (;;) {
                int w = wip.get();
                if (w < 0) {
                    return false;
                }
                if (wip.compareAndSet(w, w + 1)) {
                    // announced BEFORE enqueued: the drainer spins briefly if it sees the count first
                    tasks.offer(task);
                    if (w == 0) {
                        start(this);
                    }
                    return true;
                }
            }
        }

        /**
         * A submitter has counted its task and is about to enqueue it (or was descheduled in between):
         * spin a moment, then park in steps rather than yield the carrier to it.
         */
        private void awaitEnqueued() {
            for (int i = 0; tasks.isEmpty(); i++) {
                if (i < GAP_SPINS) {
                    Thread.onSpinWait();
                } else {
                    LockSupport.parkNanos(WAIT_STEP_NANOS);
                }
            }
        }

        @Override
        public void run() {
            for (;;) {
                Runnable task = tasks.poll();
                if (task == null) {
                    awaitEnqueued();
                    continue;
                }
                runOne(task);
                // the last task of a burst: spin a moment (on this carrier, never yielding it) for the
                // next one rather than pay a new drainer (a virtual thread start, a carrier wake-up) for it
                for (int i = 0; i < LINGER_SPINS && wip.get() == 1; i++) {
                    Thread.onSpinWait();
                }
                if (wip.decrementAndGet() == 0) {
                    // idle: retire unless a submitter got in first (it then starts the next drainer)
                    if (wip.compareAndSet(0, -1)) {
                        lanes.remove(key, this);
                    }
                    return;
                }
            }
        }
    }
}
