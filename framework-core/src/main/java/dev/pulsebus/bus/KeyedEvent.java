package dev.pulsebus.bus;

/**
 * An event that carries its own ordering key, typically the chat it belongs to. Blocking subscriptions
 * made with {@link SubscriptionBuilder#blocking()} run the events of one key one at a time, in publish
 * order; events of different keys run concurrently.
 */
public interface KeyedEvent {

    /** The ordering key; {@code null} means this event needs no ordering. Must not change over time. */
    Object orderingKey();
}
