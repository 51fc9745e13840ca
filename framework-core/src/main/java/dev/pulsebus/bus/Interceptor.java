package dev.pulsebus.bus;

/**
 * An inline handler that decides whether the dispatch goes on: returning {@link Propagation#STOP} keeps
 * every handler after it in the dispatch order (lower priorities, and equal priorities subscribed later)
 * from seeing the event. Use it for guards such as spam or permission checks.
 *
 * <p>Interceptors always run on the publishing thread; a blocking subscription cannot intercept, since it
 * runs after {@link EventBus#publish} has returned. An interceptor that throws counts as
 * {@link Propagation#CONTINUE}.
 *
 * @param <T> the event type
 */
@FunctionalInterface
public interface Interceptor<T> {

    Propagation handle(T event) throws Exception;
}
