package dev.pulsebus.internal;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs tasks when a {@link Clock} reaches their time: the one timer of ask timeouts and cron schedules,
 * so that a test's fake clock moves them as it moves everything else. One daemon thread, started when
 * the first task is added, sleeps until the earliest task is due by the clock, but never longer than
 * {@code recheck}, so a clock that jumps (a test's, or the system's after a suspend) is noticed within
 * that time. Tasks run on the timer's thread and must be short: hand real work to another thread.
 *
 * <p>Adding and cancelling take no lock (a skip list ordered by due time, O(log n)); a cancelled task
 * leaves the list at once, so it keeps nothing reachable. Unbounded by design: its owners bound what they
 * add (pending asks, a module's schedules). Internal to PulseBus: not an API.
 */
public final class ClockTimer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ClockTimer.class);

    private final String name;
    private final Clock clock;
    private final long recheckNanos;
    private final ConcurrentSkipListSet<Task> tasks = new ConcurrentSkipListSet<>();
    private final AtomicLong sequence = new AtomicLong();
    private final FailureLog failures;
    private final Object startLock = new Object();
    private volatile @Nullable Thread thread;
    private volatile boolean closed;

    public ClockTimer(String name, Clock clock, Duration recheck) {
        this.name = name;
        this.clock = clock;
        this.recheckNanos = Require.positive(recheck, "recheck").toNanos();
        this.failures = new FailureLog(LOG, "A task of timer '" + name + "'");
    }

    /** A task added with {@link #at}. */
    public interface Timeout {
        /** Takes the task out if it has not run; returns whether it had not. */
        boolean cancel();
    }

    /** Runs {@code task} on the timer's thread once the clock reads {@code epochMillis} or later. */
    public Timeout at(long epochMillis, Runnable task) {
        if (closed) {
            throw new IllegalStateException("timer '" + name + "' is closed");
        }
        Task t = new Task(epochMillis, sequence.incrementAndGet(), task);
        tasks.add(t);
        Thread running = thread;
        if (running == null) {
            start();
        } else if (t.equals(firstOrNull())) {
            LockSupport.unpark(running); // due before what it sleeps for
        }
        return t;
    }

    /** The clock the timer reads. */
    public Clock clock() {
        return clock;
    }

    private void start() {
        synchronized (startLock) {
            if (thread == null && !closed) {
                Thread t = Thread.ofPlatform().daemon().name(name).unstarted(this::run);
                thread = t;
                t.start();
            }
        }
    }

    private void run() {
        while (!closed) {
            Task first = tasks.isEmpty() ? null : firstOrNull();
            if (first == null) {
                LockSupport.park(this); // at() unparks: a task added to an empty set is the first
                continue;
            }
            long wait = first.due - clock.millis();
            if (wait > 0) {
                LockSupport.parkNanos(this, Math.min(TimeUnit.MILLISECONDS.toNanos(wait), recheckNanos));
                continue;
            }
            if (tasks.remove(first)) {
                try {
                    first.task.run();
                } catch (RuntimeException | Error e) {
                    failures.failed(e, "running");
                }
            }
        }
    }

    private @Nullable Task firstOrNull() {
        try {
            return tasks.first();
        } catch (java.util.NoSuchElementException raced) {
            return null;
        }
    }

    /** Stops the thread; tasks not yet run never run. Idempotent. */
    @Override
    public void close() {
        closed = true;
        tasks.clear();
        Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    private final class Task implements Timeout, Comparable<Task> {
        final long due;
        final long seq;
        final Runnable task;

        Task(long due, long seq, Runnable task) {
            this.due = due;
            this.seq = seq;
            this.task = task;
        }

        @Override
        public boolean cancel() {
            return tasks.remove(this);
        }

        @Override
        public int compareTo(Task o) {
            return due != o.due ? Long.compare(due, o.due) : Long.compare(seq, o.seq);
        }

        @Override
        public boolean equals(@Nullable Object o) {
            return o instanceof Task t && t.seq == seq;
        }

        @Override
        public int hashCode() {
            return Long.hashCode(seq);
        }
    }
}
