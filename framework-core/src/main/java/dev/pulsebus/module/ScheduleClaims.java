package dev.pulsebus.module;

import java.time.Instant;

/**
 * Which of several instances that run the same modules (a cluster) runs a cron job's time
 * ({@link ModuleContext#schedule}): each instance asks before it runs a time, and runs it only when this
 * answers true. Set with {@link ModuleHost.Builder#scheduleClaims}; the default, {@link #EACH_INSTANCE}, says
 * yes to every time (one bot, one instance).
 *
 * <p>An implementation answers true to the first instance that asks for a job's time and false to the others
 * (Redis {@code SET NX PX} does); when it cannot tell, it should answer true: a daily message sent twice is
 * better than one sent by nobody.
 */
@FunctionalInterface
public interface ScheduleClaims {

    /** Every instance runs every time. */
    ScheduleClaims EACH_INSTANCE = (job, time) -> true;

    /**
     * Whether this instance runs {@code job} at {@code time}. {@code job} names the job the same way on each
     * instance that loaded the same module ({@code <module>/<expression>/<zone>}, with {@code #<n>} added for the
     * n-th job of the module with the same expression and zone); a catch-up run asks with the time it replays.
     * Called on the run's virtual thread; may block for a network round trip.
     */
    boolean claim(String job, Instant time);
}
