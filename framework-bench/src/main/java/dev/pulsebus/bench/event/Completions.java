package dev.pulsebus.bench.event;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The events the blocking rows' handlers have run, and the wait for a batch of them. The waiting thread
 * parks, and the handler that completes the batch unparks it: a waiter that polled with
 * {@code Thread.yield()} handed its core to whatever else was runnable, for a whole time slice under CPU
 * contention, and measured that instead of the handlers. Every peer's handler calls {@link #one()}.
 */
final class Completions {

    private static final long STALL_NANOS = TimeUnit.SECONDS.toNanos(30);

    private final AtomicLong done = new AtomicLong();
    private volatile long target = Long.MAX_VALUE;
    private volatile Thread waiter;

    /** One event handled. */
    void one() {
        if (done.incrementAndGet() == target) {
            LockSupport.unpark(waiter);
        }
    }

    /** Before publishing a batch of {@code n}: the count {@link #await} waits for. */
    long expect(int n) {
        long t = done.get() + n;
        waiter = Thread.currentThread();
        target = t;
        return t;
    }

    /** Parks until {@code t} events are done (see {@link #expect}). */
    void await(long t) {
        long deadline = System.nanoTime() + STALL_NANOS;
        while (done.get() < t) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new IllegalStateException("blocking handlers stalled: " + (t - done.get()) + " missing");
            }
            LockSupport.parkNanos(this, left);
        }
    }

    /** Spins until {@code t} events are done: for the latency of one event, which a wake-up would swamp. */
    @SuppressWarnings("ThreadPriorityCheck") // yields on purpose: see below
    void awaitSpinning(long t) {
        long deadline = System.nanoTime() + STALL_NANOS;
        while (done.get() < t) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("blocking handler stalled");
            }
            Thread.yield(); // two cores: leave the carriers of the virtual threads room to run
        }
    }
}
