package dev.pulsebus.internal;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;

/**
 * Logs the failures of one thing (a handler, a command) without flooding: the first with its stack
 * trace, later ones at most one line per interval with the running count. Thread-safe; counts every
 * failure. Internal to PulseBus: not an API.
 */
public final class FailureLog {

    private static final long INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(60);

    private final Logger log;
    private final String what;
    private final AtomicLong failures = new AtomicLong();
    private final AtomicLong lastLogNanos = new AtomicLong();

    /** @param what how log lines name the failing thing, e.g. {@code "Handler 'greeter'"} */
    public FailureLog(Logger log, String what) {
        this.log = log;
        this.what = what;
    }

    /** Records one failure of {@code what} while doing {@code doing} (e.g. "on GroupMessage"). */
    public void failed(Throwable t, String doing) {
        long n = failures.incrementAndGet();
        long now = System.nanoTime();
        if (n == 1) {
            lastLogNanos.set(now);
            log.error("{} failed {}", what, doing, t);
            return;
        }
        long last = lastLogNanos.get();
        if (now - last >= INTERVAL_NANOS && lastLogNanos.compareAndSet(last, now)) {
            log.error("{} failed again {} ({} failures so far): {}", what, doing, n, t.toString());
        }
    }
}
