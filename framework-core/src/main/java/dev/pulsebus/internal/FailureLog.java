package dev.pulsebus.internal;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;

/**
 * Logs the failures of one thing (a handler, a command) without flooding: the first with its stack
 * trace, later ones at most one line per interval with the running count. Thread-safe; counts every
 * failure. {@link #warning} makes one for a warning that may repeat many times a second (a full
 * buffer): the first is logged, later ones at most one per interval. The one place PulseBus rate-limits
 * a log line. Internal to PulseBus: not an API.
 */
public final class FailureLog {

    private static final long INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(60);

    private final Logger log;
    private final String what;
    private final AtomicLong failures = new AtomicLong();
    private final AtomicLong lastLogNanos = new AtomicLong();
    private final long intervalNanos;

    /** @param what how log lines name the failing thing, e.g. {@code "Handler 'greeter'"} */
    public FailureLog(Logger log, String what) {
        this(log, what, INTERVAL_NANOS);
    }

    private FailureLog(Logger log, String what, long intervalNanos) {
        this.log = log;
        this.what = what;
        this.intervalNanos = intervalNanos;
    }

    /** For {@link #warn}: a warning logged the first time, then at most once per {@code interval}. */
    public static FailureLog warning(Logger log, Duration interval) {
        return new FailureLog(log, "", interval.toNanos());
    }

    /**
     * Logs {@code format} with {@code args} at WARN (as SLF4J formats them) when it is the first call, or
     * the first since {@code interval} passed since the last line; otherwise only counts it.
     */
    public void warn(String format, Object... args) {
        if (due() > 0) {
            log.warn(format, args);
        }
    }

    /** Records one failure of {@code what} while doing {@code doing} (e.g. "on GroupMessage"). */
    public void failed(Throwable t, String doing) {
        long n = due();
        if (n == 1) {
            log.error("{} failed {}", what, doing, t);
        } else if (n > 1) {
            log.error("{} failed again {} ({} failures so far): {}", what, doing, n, t.toString());
        }
    }

    /**
     * Counts one; returns the count when a line is due (the first, or the first since the interval passed
     * since the last line), else 0.
     */
    private long due() {
        long n = failures.incrementAndGet();
        long now = System.nanoTime();
        if (n == 1) {
            lastLogNanos.set(now);
            return n;
        }
        long last = lastLogNanos.get();
        return now - last >= intervalNanos && lastLogNanos.compareAndSet(last, now) ? n : 0;
    }
}
