package dev.pulsebus.module;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * A job a module runs on a calendar ({@link ModuleContext#schedule}). Runs happen at the expression's
 * times in its zone, read from the bot's clock; each runs on a virtual thread, one at a time: when a run
 * is still going at the next time, that time is skipped and counted ({@link #skipped()},
 * {@code pulsebus_schedule_runs_total{result="skipped"}}). Cancelled when the module unloads.
 *
 * <p>A time missed while the bot was down is not replayed, unless the job asks with {@link #catchUp()}.
 *
 * <p>In a cluster each time runs on one instance, the first to claim it, and one run of the job goes at a time
 * among the instances ({@link ScheduleClaims}); {@link ModuleContext#after} and {@link ModuleContext#every} run
 * on every instance.
 */
public interface CronJob extends AutoCloseable {

    /**
     * Replays, once, a run missed while the bot was not running: when a time of the expression fell
     * between the last run (kept in the module's KV, key {@code pulsebus.schedule/<expression>/<zone>}) and
     * now, the job runs now, once however many times were missed. From now on each run's time is written
     * there. The first call, with nothing kept yet, only starts keeping it. Returns this job.
     *
     * @throws ModuleException when the bot has no KV store
     */
    CronJob catchUp();

    /** When the job runs next, or {@code null} when the expression has no more times (or it is cancelled). */
    @Nullable Instant nextRun();

    /** How many runs have started here (not counting the times another instance of a cluster ran). */
    long runs();

    /** How many times were skipped because the run before was still going. */
    long skipped();

    /** Stops the job: no run starts after this; one running finishes. Idempotent. */
    void cancel();

    /** The same as {@link #cancel()}. */
    @Override
    default void close() {
        cancel();
    }
}
