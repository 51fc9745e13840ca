package dev.pulsebus.bus;

/**
 * Receives events of type {@code T} (and of its subtypes) from an {@link EventBus}.
 *
 * <p>An exception thrown here does not reach the publisher and does not stop the other handlers: the bus
 * counts it ({@code pulsebus_handler_errors_total}) and logs it with the subscription's name.
 *
 * @param <T> the event type
 */
@FunctionalInterface
public interface EventHandler<T> {

    void handle(T event) throws Exception;
}
