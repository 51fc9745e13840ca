package dev.pulsebus.bus;

/** What an {@link Interceptor} tells the bus to do with the rest of the dispatch. */
public enum Propagation {
    /** The next handler in the dispatch order sees the event. */
    CONTINUE,
    /** No handler after this one in the dispatch order sees the event. */
    STOP
}
