package dev.pulsebus.transcript;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Transcript retention: every {@code interval}, on a thread of its own, asks the store to keep the newest
 * {@code keepPerChat} records of each chat and none older than {@code maxAge}. A failed run is logged and
 * tried again at the next interval.
 */
final class TranscriptRetention {

    private static final Logger LOG = LoggerFactory.getLogger(TranscriptWriter.class);

    private final TranscriptStore store;
    private final int keepPerChat;
    private final Duration maxAge;
    private final Clock clock;
    private final long intervalNanos;
    private final Thread thread;
    private volatile boolean stopping;

    TranscriptRetention(TranscriptStore store, int keepPerChat, Duration maxAge, Clock clock, Duration interval) {
        this.store = store;
        this.keepPerChat = keepPerChat;
        this.maxAge = maxAge;
        this.clock = clock;
        this.intervalNanos = interval.toNanos();
        this.thread = Thread.ofPlatform().daemon().name("pulsebus-transcript-retention").start(this::loop);
    }

    private void loop() {
        while (!stopping) {
            LockSupport.parkNanos(this, intervalNanos);
            if (!stopping) {
                run();
            }
        }
    }

    /** Applies retention now; returns the rows deleted (0 when it failed, which is logged). */
    long run() {
        try {
            return store.retain(keepPerChat, clock.instant().minus(maxAge));
        } catch (Throwable t) {
            LOG.warn("Transcript retention failed; it runs again in {} s: {}", intervalNanos / 1_000_000_000L,
                    t.toString());
            return 0;
        }
    }

    /** Stops the thread after the run in progress, if any; {@link #join} waits for it. */
    void stop() {
        stopping = true;
        LockSupport.unpark(thread);
    }

    void join(long millis) throws InterruptedException {
        thread.join(millis);
    }
}
