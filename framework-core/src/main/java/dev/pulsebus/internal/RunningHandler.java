package dev.pulsebus.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import org.jspecify.annotations.Nullable;

/**
 * What one lane worker thread is handling, for the watch that reports stalls: since when (written per
 * event, {@code 0} between events), the event's ordering key, and the command running (named by the router
 * through {@link #naming}). The worker writes it; the watch reads it and may {@linkplain #claim claim} a
 * stalled run, which the worker learns as it ends the run ({@link #end}) by one compare-and-set: no lock,
 * nothing allocated per event. Internal to PulseBus: not an API.
 */
public final class RunningHandler {

    /** The slot of the lane worker running on this thread; none on other threads. */
    private static final ThreadLocal<RunningHandler> CURRENT = new ThreadLocal<>();
    /** Times are kept from here, so that a run's start is positive (its claim negative). */
    private static final long ORIGIN = System.nanoTime() - 1;
    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(RunningHandler.class, "state", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    public final Thread thread;
    /** 0: idle; positive: running since then (from {@link #ORIGIN}); negative: that, claimed by the watch. */
    @SuppressWarnings("unused") // through STATE
    private volatile long state;
    /** Published by the write of {@link #state} after it; read after reading it. */
    private @Nullable Object key;
    /** Named by the router while a command runs (a module while its handler runs), cleared when it returns. */
    private volatile @Nullable Named site;

    /** How long the item in hand waited in its lane, and handing its record to the transcript writer. Own thread. */
    private long queuedNanos;
    private long transcriptNanos;

    /** The worker takes an item that waited {@code nanos} in its lane. */
    public void queued(long nanos) {
        queuedNanos = nanos;
        transcriptNanos = 0;
    }

    /** The item in hand's record took {@code nanos} to hand to the transcript writer (when on a lane worker). */
    public static void transcriptWaited(long nanos) {
        RunningHandler r = CURRENT.get();
        if (r != null) {
            r.transcriptNanos += nanos;
        }
    }

    /** How long the calling lane worker's item waited in its lane; 0 elsewhere. */
    public static long queuedNanos() {
        RunningHandler r = CURRENT.get();
        return r == null ? 0 : r.queuedNanos;
    }

    /** How long the calling lane worker's item took to hand to the transcript writer; 0 elsewhere. */
    public static long transcriptNanos() {
        RunningHandler r = CURRENT.get();
        return r == null ? 0 : r.transcriptNanos;
    }

    /** The slot of the calling thread, which handles events from now on. */
    public static RunningHandler forThisThread() {
        RunningHandler r = new RunningHandler(Thread.currentThread());
        CURRENT.set(r);
        return r;
    }

    private RunningHandler(Thread thread) {
        this.thread = thread;
    }

    /** A command or handler as a stall report names it ({@code toString}), and its module. */
    public interface Named {
        String module();
    }

    /**
     * Names what the calling thread runs now ({@code null}: nothing named), when it is a lane worker, and
     * returns what was named before, to be named again when it returns: the router names each inline command
     * it runs, a module each handler of message events. Elsewhere a thread-local read and nothing else.
     */
    public static @Nullable Named naming(@Nullable Named running) {
        RunningHandler r = CURRENT.get();
        if (r == null) {
            return null;
        }
        Named before = r.site;
        r.site = running;
        return before;
    }

    /** The worker starts an event of {@code key}. */
    public void begin(Object key) {
        this.key = key;
        STATE.setVolatile(this, Math.max(1, System.nanoTime() - ORIGIN));
    }

    /** The worker is done with its event; returns whether the watch claimed the run (the worker is left to it). */
    public boolean end() {
        long s = (long) STATE.getVolatile(this);
        if (s > 0 && STATE.compareAndSet(this, s, 0L)) {
            return false;
        }
        STATE.setVolatile(this, 0L);
        return s != 0;
    }

    /** How long the current run has taken, in nanoseconds; -1 when idle. */
    public long running(long nanoTime) {
        long s = (long) STATE.getVolatile(this);
        return s == 0 ? -1 : nanoTime - ORIGIN - Math.abs(s);
    }

    /** Whether it runs an event now. */
    public boolean busy() {
        return (long) STATE.getVolatile(this) != 0;
    }

    /**
     * Claims the current run for the watch when it has run {@code stallNanos} or longer at {@code nanoTime} and
     * is not claimed yet; false otherwise (idle, shorter, or claimed before). Once claimed, {@link #end} tells
     * the worker.
     */
    public boolean claim(long nanoTime, long stallNanos) {
        long s = (long) STATE.getVolatile(this);
        return s > 0 && nanoTime - ORIGIN - s >= stallNanos && STATE.compareAndSet(this, s, -s);
    }

    /** The key of the event it runs: read it after {@link #running}, {@link #busy} or {@link #claim}. */
    public @Nullable Object key() {
        return key;
    }

    /** The command it runs, when one is named; else null. */
    public @Nullable Named site() {
        return site;
    }
}
