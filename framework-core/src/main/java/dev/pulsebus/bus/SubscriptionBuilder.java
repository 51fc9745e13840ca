package dev.pulsebus.bus;

import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Describes one subscription, then makes it with {@link #subscribe} or {@link #intercept}. Obtained from
 * {@link EventBus#on(Class)}; not thread-safe, and meant to be used in one expression:
 *
 * <pre>{@code
 * bus.on(GroupMessage.class).priority(10).filter(m -> !m.fromBot()).subscribe(this::answer);
 * }</pre>
 *
 * @param <T> the event type; the subscription also receives every subtype of it
 */
public interface SubscriptionBuilder<T> {

    /**
     * Higher priorities run first; equal priorities run in the order they were subscribed. Default 0.
     */
    SubscriptionBuilder<T> priority(int priority);

    /**
     * Only events the predicate accepts reach the handler; rejected events do not count as handled. The
     * predicate runs on the publishing thread, also for blocking subscriptions. Several filters must all
     * accept.
     */
    SubscriptionBuilder<T> filter(Predicate<? super T> filter);

    /** The subscription cancels itself after its first event (exactly once, under concurrency too). */
    SubscriptionBuilder<T> once();

    /**
     * The handler may block: it runs on a virtual thread, not the publisher's. Events whose type
     * implements {@link KeyedEvent} run in order per key; other events run unordered.
     */
    SubscriptionBuilder<T> blocking();

    /**
     * The handler may block: it runs on a virtual thread, and events with equal keys (per
     * {@link Object#equals}) run one at a time in publish order. A {@code null} key means unordered.
     */
    SubscriptionBuilder<T> blocking(Function<? super T, ?> orderingKey);

    /** The name used in logs. Default: the event type and the handler's class. */
    SubscriptionBuilder<T> name(String name);

    /** Subscribes the handler with the options given so far. */
    Subscription subscribe(EventHandler<? super T> handler);

    /**
     * Subscribes an inline interceptor, which may stop the dispatch.
     *
     * @throws IllegalStateException if {@link #blocking()} was asked for
     */
    Subscription intercept(Interceptor<? super T> interceptor);
}
