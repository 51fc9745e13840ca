package dev.pulsebus.bus;

/**
 * What one event class resolves to under one registry snapshot: its handlers in order, its meters.
 *
 * <p>When every subscriber is a plain inline handler (no filter, not once-only, not an interceptor, not
 * blocking, not a module's handler whose costs are measured), which is the common case, {@link #handlers} holds their handlers in the same order so the
 * publisher's loop is one {@code active} check and one interface call per handler.
 */
final class Dispatch {

    final Subscriber[] subscribers;
    final BusMetrics.TypeMeters meters;
    /** Non-null only when every subscriber is plain: {@code handlers[i]} belongs to {@code subscribers[i]}. */
    final EventHandler<Object>[] handlers;

    @SuppressWarnings({"rawtypes", "unchecked"}) // a generic array: every handler takes Object here
    Dispatch(Subscriber[] subscribers, BusMetrics.TypeMeters meters) {
        this.subscribers = subscribers;
        this.meters = meters;
        boolean simple = true;
        for (Subscriber s : subscribers) {
            simple &= s.plain && s.handler != null && s.cost == null;
        }
        if (simple) {
            this.handlers = new EventHandler[subscribers.length];
            for (int i = 0; i < subscribers.length; i++) {
                handlers[i] = subscribers[i].handler;
            }
        } else {
            this.handlers = null;
        }
    }
}
