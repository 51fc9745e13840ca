package dev.pulsebus.pipeline;

import dev.pulsebus.internal.RunningHandler;
import java.time.Duration;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches the workers of {@link ChatLanes} for a handler that runs past {@code stallAfter}
 * ({@code bus.stall_ms}): one daemon thread scans, every quarter of it (10 ms to 1 s), the "running since"
 * each worker writes per event. A stalled run is logged once at WARN, naming the command (and its module)
 * when a command runs, and its lane moves its other chats to a fresh worker; {@link #stalled()} counts the
 * runs stalled now ({@code pulsebus_handler_stalled}, {@code /health} DEGRADED). {@link #interrupt} stops
 * the runs of a module that unloads. A pipeline owns one ({@link MessagePipeline#handlerWatch()}).
 */
public final class HandlerWatch implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(HandlerWatch.class);
    /** For lanes that feed something other than a pipeline: runs are tracked (for interrupts), never judged. */
    static final HandlerWatch NONE = new HandlerWatch(Duration.ZERO);

    private final long stallNanos;
    private final CopyOnWriteArrayList<Watched> watched = new CopyOnWriteArrayList<>();
    private volatile int stalled;
    private final Object lock = new Object();
    /** Made when the first worker is watched. Guarded by {@link #lock}. */
    private @Nullable ScheduledExecutorService timer;
    private boolean closed;

    /** A worker, the lane it works for, and what its lane does when it stalls. */
    private record Watched(RunningHandler slot, String lane, Stalled onStall) {
    }

    /** What a lane does when its worker's run stalls. */
    interface Stalled {
        /**
         * Claims the run ({@link RunningHandler#claim}) under the lane's own lock and moves the lane on; false
         * when it could not be claimed (it ended meanwhile, or is claimed already).
         */
        boolean claim(long nanoTime, long stallNanos);
    }

    /** @param stallAfter how long a run may take before it is reported; zero: never */
    HandlerWatch(Duration stallAfter) {
        if (stallAfter.isNegative()) {
            throw new IllegalArgumentException("stallAfter must not be negative, was " + stallAfter);
        }
        this.stallNanos = stallAfter.toNanos();
    }

    /** How many handler runs are stalled now (past the threshold, not yet returned), as of the last scan. */
    public int stalled() {
        return stalled;
    }

    /**
     * Interrupts the threads running a command or message handler of {@code module} now (one that unloads);
     * returns how many.
     * A handler that ignores interrupts runs on, its lane's other chats served by a fresh worker once it stalls.
     */
    public int interrupt(String module) {
        int n = 0;
        for (Watched w : watched) {
            RunningHandler.Named site = w.slot.site();
            if (w.slot.busy() && site != null && site.module().equals(module)) {
                w.slot.thread.interrupt();
                n++;
            }
        }
        return n;
    }

    /** Watches {@code slot}, a worker of {@code lane}; {@code onStall} runs (on the watch's thread) at each stall. */
    void watch(RunningHandler slot, String lane, Stalled onStall) {
        watched.add(new Watched(slot, lane, onStall));
        if (stallNanos == 0) {
            return;
        }
        synchronized (lock) {
            if (timer == null && !closed) {
                ScheduledExecutorService t = Executors.newSingleThreadScheduledExecutor(r -> Thread.ofPlatform()
                        .daemon().name("pulsebus-handler-watch").unstarted(r));
                long period = Math.clamp(stallNanos / 4, TimeUnit.MILLISECONDS.toNanos(10), TimeUnit.SECONDS.toNanos(1));
                t.scheduleWithFixedDelay(this::scan, period, period, TimeUnit.NANOSECONDS);
                timer = t;
            }
        }
    }

    /** Stops watching {@code slot} (its worker ended). */
    void forget(RunningHandler slot) {
        watched.removeIf(w -> w.slot == slot);
    }

    private void scan() {
        long now = System.nanoTime();
        int n = 0;
        for (Watched w : watched) {
            long took = w.slot.running(now);
            if (took < stallNanos) {
                continue; // idle (-1) or not yet
            }
            n++;
            boolean claimed;
            try {
                claimed = w.onStall.claim(now, stallNanos);
            } catch (RuntimeException | Error e) {
                LOG.error("Lane {} could not move on from a stalled handler", w.lane, e);
                continue;
            }
            if (claimed) {
                RunningHandler.Named site = w.slot.site();
                LOG.warn("Stalled: {} has run for {} ms on chat {} (lane {}), past bus.stall_ms = {}; the lane's other "
                                + "chats go on without it, this chat's next events wait for it",
                        site == null ? "a handler" : site, TimeUnit.NANOSECONDS.toMillis(took), w.slot.key(), w.lane,
                        TimeUnit.NANOSECONDS.toMillis(stallNanos));
            }
        }
        stalled = n;
    }

    /** Stops the watch's thread. */
    @Override
    public void close() {
        synchronized (lock) {
            closed = true;
            if (timer != null) {
                timer.shutdownNow();
            }
        }
        stalled = 0;
    }
}
