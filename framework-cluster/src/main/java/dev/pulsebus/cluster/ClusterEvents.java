package dev.pulsebus.cluster;

import dev.pulsebus.bus.EventBus;
import dev.pulsebus.internal.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Events that reach the bus of every instance. {@code bus.publish} stays local; a module that wants an event type
 * seen cluster-wide {@link #register registers} it (on every instance: a type not registered where it arrives is
 * dropped there, counted in the log) and publishes it with {@link #publish}, which publishes it on this instance's
 * bus and sends it, as JSON (Jackson: records and beans), to the others, where it is published on their buses.
 * Delivery to the others is at most once and unordered with respect to chat events.
 */
public final class ClusterEvents {

    private static final Logger LOG = LoggerFactory.getLogger(ClusterEvents.class);
    static final String PREFIX = "event:";

    private final Broker broker;
    private final Map<String, Class<?>> types = new ConcurrentHashMap<>();
    private volatile @Nullable EventBus bus;

    ClusterEvents(Broker broker) {
        this.broker = broker;
    }

    void deliverTo(EventBus bus) {
        this.bus = bus;
    }

    /** Marks {@code type} clustered: instances that registered it publish what others send of it on their bus. */
    public void register(Class<?> type) {
        types.put(type.getName(), type);
    }

    /** Forgets {@code type} (its module unloads). */
    public void unregister(Class<?> type) {
        types.remove(type.getName(), type);
    }

    /**
     * Publishes {@code event} on this instance's bus and on every other instance's.
     *
     * @throws IllegalArgumentException when its type is not registered
     */
    public void publish(Object event) {
        Objects.requireNonNull(event, "event");
        String name = event.getClass().getName();
        if (types.get(name) != event.getClass()) {
            throw new IllegalArgumentException(name + " is not a clustered event type: register it first");
        }
        byte[] json;
        try {
            json = Json.MAPPER.writeValueAsBytes(event);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot encode " + name + " as JSON", e);
        }
        EventBus b = bus;
        if (b != null) {
            b.publish(event);
        }
        broker.broadcast(PREFIX + name, json);
    }

    /** A broadcast of {@code kind}: true when it was a clustered event (published here when its type is known). */
    boolean received(String kind, byte[] body) {
        if (!kind.startsWith(PREFIX)) {
            return false;
        }
        Class<?> type = types.get(kind.substring(PREFIX.length()));
        EventBus b = bus;
        if (type == null || b == null) {
            LOG.warn("A clustered event {} arrived but its type is not registered here; dropped", kind);
            return true;
        }
        try {
            b.publish(Json.MAPPER.readValue(body, type));
        } catch (IOException e) {
            LOG.warn("A clustered event {} could not be read: {}", kind, e.toString());
        }
        return true;
    }
}
