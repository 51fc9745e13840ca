package dev.pulsebus.module;

import dev.pulsebus.internal.ClockTimer;
import dev.pulsebus.internal.FailureLog;
import dev.pulsebus.kv.Kv;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link CronJob}: the next time is put on the host's {@link ClockTimer}; when it comes, the time after
 * it is put there first (from the due time, so a slow run moves nothing), then the run starts on a virtual
 * thread unless the previous one still runs.
 */
final class CronRun implements CronJob {

    private static final Logger LOG = LoggerFactory.getLogger(CronJob.class);

    private final String module;
    /** The job's name in {@link ScheduleClaims#claim}, the same on every instance. */
    private final String id;
    private final ScheduleClaims claims;
    private final Cron cron;
    private final Runnable job;
    private final ClockTimer timer;
    private final Supplier<Kv> kv;
    private final FailureLog failures;
    private final AtomicBoolean running = new AtomicBoolean();
    private final LongAdder runs = new LongAdder();
    private final LongAdder skipped = new LongAdder();
    private final @Nullable Counter ok;
    private final @Nullable Counter failed;
    private final @Nullable Counter skippedCounter;
    private final @Nullable Counter elsewhere;
    private final Object lock = new Object();
    private ClockTimer.@Nullable Timeout next;
    private @Nullable Instant nextTime;
    private boolean cancelled;
    /** Set by {@link #catchUp()}: each run's time is written to the module's KV. */
    private volatile @Nullable Kv keeping;

    CronRun(String module, String id, ScheduleClaims claims, Cron cron, Runnable job, ClockTimer timer, Supplier<Kv> kv,
            @Nullable MeterRegistry registry) {
        this.module = module;
        this.id = id;
        this.claims = claims;
        this.cron = cron;
        this.job = job;
        this.timer = timer;
        this.kv = kv;
        this.failures = new FailureLog(LOG, "Scheduled job '" + cron + "' of module '" + module + "'");
        this.ok = counter(registry, "ok");
        this.failed = counter(registry, "failed");
        this.skippedCounter = counter(registry, "skipped");
        this.elsewhere = counter(registry, "elsewhere");
    }

    private @Nullable Counter counter(@Nullable MeterRegistry registry, String result) {
        return registry == null ? null : Counter.builder("pulsebus.schedule.runs").tag("module", module)
                .tag("result", result).description("Runs of modules' cron jobs: ok, failed, skipped because "
                        + "the run before was still going, or elsewhere (another instance of the cluster ran that time)")
                .register(registry);
    }

    /** Puts the first time on the timer. */
    CronRun start() {
        planAfter(timer.clock().instant());
        return this;
    }

    private void planAfter(Instant after) {
        synchronized (lock) {
            if (cancelled) {
                return;
            }
            Instant t = cron.next(after);
            nextTime = t;
            next = t == null ? null : timer.at(t.toEpochMilli(), () -> due(t));
        }
    }

    /** On the timer's thread, at {@code time}. */
    private void due(Instant time) {
        planAfter(time);
        run(time, time);
    }

    /** Runs the job now for its time {@code time}, claimed as {@code claimed} (the time a catch-up replays). */
    private void run(Instant time, Instant claimed) {
        if (!running.compareAndSet(false, true)) {
            skip(time);
            return;
        }
        try {
            Thread.ofVirtual().name("pulsebus-module-" + module).start(() -> {
                ScheduleClaims.Claim claim = null;
                try {
                    claim = claim(claimed);
                    if (claim == ScheduleClaims.Claim.ELSEWHERE) {
                        if (elsewhere != null) {
                            elsewhere.increment();
                        }
                        return;
                    }
                    if (claim == ScheduleClaims.Claim.BUSY) { // a run of this job still goes on another instance
                        skip(time);
                        return;
                    }
                    runs.increment();
                    keep(time);
                    job.run();
                    if (ok != null) {
                        ok.increment();
                    }
                } catch (Throwable t) {
                    if (failed != null) {
                        failed.increment();
                    }
                    failures.failed(t, "running (time " + time + ")");
                } finally {
                    if (claim == ScheduleClaims.Claim.RUN) {
                        ended(claimed);
                    }
                    running.set(false);
                }
            });
        } catch (RuntimeException | OutOfMemoryError cannotStart) {
            running.set(false);
            throw cannotStart;
        }
    }

    private void skip(Instant time) {
        skipped.increment();
        if (skippedCounter != null) {
            skippedCounter.increment();
        }
        LOG.debug("Scheduled job {} of module {}: the run of {} is skipped, the one before still runs", cron,
                module, time);
    }

    /**
     * What this instance does with {@code time}; it runs it when the claims cannot tell (a failing one is logged).
     * A run holds the job from the other instances for twice the gap to the next time, from a minute to an hour.
     */
    private ScheduleClaims.Claim claim(Instant time) {
        Instant after = cron.next(time);
        Duration gap = after == null ? MAX_HOLD : Duration.between(time, after).multipliedBy(2);
        Duration hold = gap.compareTo(MIN_HOLD) < 0 ? MIN_HOLD : gap.compareTo(MAX_HOLD) > 0 ? MAX_HOLD : gap;
        try {
            return Objects.requireNonNull(claims.claim(id, time, hold), "claim");
        } catch (RuntimeException e) {
            failures.failed(e, "claiming its run of " + time + " (running it here)");
            return ScheduleClaims.Claim.RUN;
        }
    }

    private static final Duration MIN_HOLD = Duration.ofMinutes(1);
    private static final Duration MAX_HOLD = Duration.ofHours(1);

    private void ended(Instant time) {
        try {
            claims.ended(id, time);
        } catch (RuntimeException e) {
            failures.failed(e, "telling the cluster its run of " + time + " ended");
        }
    }

    /** Writes {@code time} as the last run when the job catches up; a failing store does not stop the run. */
    private void keep(Instant time) {
        Kv k = keeping;
        if (k != null) {
            try {
                k.set(key(), time.toString());
            } catch (RuntimeException e) {
                failures.failed(e, "keeping its last run time (" + time + "); the run goes on");
            }
        }
    }

    private String key() {
        return "pulsebus.schedule/" + cron.expression() + "/" + cron.zone().getId();
    }

    @Override
    public CronJob catchUp() {
        Kv k = kv.get();
        String last = k.get(key());
        Instant now = timer.clock().instant();
        keeping = k;
        if (last == null) {
            k.set(key(), now.toString());
            return this;
        }
        Instant lastRun;
        try {
            lastRun = Instant.parse(last);
        } catch (DateTimeParseException bad) {
            LOG.warn("Scheduled job {} of module {}: its last run '{}' in KV cannot be read; nothing is replayed", cron,
                    module, last);
            k.set(key(), now.toString());
            return this;
        }
        Instant missed = cron.next(lastRun);
        if (missed != null && !missed.isAfter(now)) {
            LOG.info("Scheduled job {} of module {}: replaying, once, the run of {} missed while the bot was down",
                    cron, module, missed);
            run(now, missed); // kept as now: a restart soon after does not replay it again
        }
        return this;
    }

    @Override
    public @Nullable Instant nextRun() {
        synchronized (lock) {
            return nextTime;
        }
    }

    @Override
    public long runs() {
        return runs.sum();
    }

    @Override
    public long skipped() {
        return skipped.sum();
    }

    @Override
    public void cancel() {
        synchronized (lock) {
            cancelled = true;
            nextTime = null;
            if (next != null) {
                next.cancel();
                next = null;
            }
        }
    }

    @Override
    public String toString() {
        return "CronJob[" + cron + ", module " + module + "]";
    }
}
