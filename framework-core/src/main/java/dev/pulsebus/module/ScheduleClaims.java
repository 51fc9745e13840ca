package dev.pulsebus.module;

import java.time.Duration;
import java.time.Instant;

/**
 * Which of several instances that run the same modules (a cluster) runs a cron job's time
 * ({@link ModuleContext#schedule}), and that one run of a job goes at a time among them: each instance asks
 * before it runs a time, runs it only on {@link Claim#RUN}, and says when that run {@linkplain #ended ended}.
 * Set with {@link ModuleHost.Builder#scheduleClaims}; the default, {@link #EACH_INSTANCE}, answers
 * {@link Claim#RUN} to every time (one bot, one instance: its own runs are kept one at a time by the job).
 *
 * <p>An implementation answers {@link Claim#RUN} to the first instance that asks for a job's time while no run
 * of the job goes anywhere, {@link Claim#ELSEWHERE} to the others, and {@link Claim#BUSY} while a run of the job
 * claimed earlier has not ended (for at most {@code hold}: an instance that died in a run does not stop the job
 * for longer). When it cannot tell, it should answer {@link Claim#RUN}: a daily message sent twice is better than
 * one sent by nobody.
 */
@FunctionalInterface
public interface ScheduleClaims {

    /** What an instance is to do with a time of a job. */
    enum Claim {
        /** Run it here. */
        RUN,
        /** Another instance claimed this time. */
        ELSEWHERE,
        /** A run of the job is still going (here or on another instance): this time is skipped. */
        BUSY
    }

    /** Every instance runs every time. */
    ScheduleClaims EACH_INSTANCE = (job, time, hold) -> Claim.RUN;

    /**
     * What this instance does with {@code job} at {@code time}. {@code job} names the job the same way on each
     * instance that loaded the same module ({@code <module>/<expression>/<zone>}, with {@code #<n>} added for the
     * n-th job of the module with the same expression and zone); a catch-up run asks with the time it replays.
     * {@code hold} bounds how long the run may keep the job from the others. Called on the run's virtual thread;
     * may block for a network round trip.
     */
    Claim claim(String job, Instant time, Duration hold);

    /** The run of {@code job} this instance claimed for {@code time} has ended. Nothing by default. */
    default void ended(String job, Instant time) {
    }
}
