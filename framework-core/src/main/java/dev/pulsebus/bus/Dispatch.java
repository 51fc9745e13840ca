package dev.pulsebus.bus;

/** What one event class resolves to under one registry snapshot: its handlers in order, its meters. */
final class Dispatch {

    final Subscriber[] subscribers;
    final BusMetrics.TypeMeters meters;

    Dispatch(Subscriber[] subscribers, BusMetrics.TypeMeters meters) {
        this.subscribers = subscribers;
        this.meters = meters;
    }
}
