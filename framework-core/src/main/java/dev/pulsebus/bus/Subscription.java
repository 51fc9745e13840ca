package dev.pulsebus.bus;

/**
 * A handle on one subscription. Thread-safe.
 *
 * <p>Cancelling during a dispatch: a handler of the subscription that has not yet been reached in that
 * dispatch is skipped; one that is already running finishes. Blocking work already accepted still runs.
 *
 * <p>Like every PulseBus handle it is {@link AutoCloseable}: {@link #close()} is {@link #cancel()}.
 */
public interface Subscription extends AutoCloseable {

    /** Removes the subscription; later publishes do not reach it. Idempotent. */
    void cancel();

    /** The same as {@link #cancel()}. */
    @Override
    default void close() {
        cancel();
    }

    /** {@code false} once cancelled, or once a {@code once()} subscription has fired. */
    boolean isActive();

    /** The name used in logs: the one given to {@link SubscriptionBuilder#name}, or one derived. */
    String name();
}
