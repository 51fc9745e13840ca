package dev.pulsebus.platform;

import java.util.function.BiConsumer;

/**
 * Messages between the instances of a cluster, for a platform whose connection to a bot reaches one instance
 * while its events are handled on another (a OneBot reverse WebSocket): broadcasts, messages to one instance,
 * and claims that only one instance wins. At most once: a message sent while the broker is down is lost
 * (the sender times out). Thread-safe.
 */
public interface InstanceMessaging {

    /** This instance's name in the cluster. */
    String instance();

    /** The address other instances {@link #send} to this one at; empty until it has joined. */
    String address();

    /** Sends {@code body}, of {@code kind}, to every other instance. */
    void broadcast(String kind, byte[] body);

    /** Sends {@code body}, of {@code kind}, to the instance at {@code address}. */
    void send(String address, String kind, byte[] body);

    /**
     * Claims {@code id} for {@code ttlMillis}: true for the first instance to claim it, false for the others
     * (and for a claim while the shared store is down).
     */
    boolean claim(String id, long ttlMillis);

    /**
     * Hands the messages whose kind starts with {@code kindPrefix} (broadcast by other instances or sent to
     * this one) to {@code receiver}, on the cluster's consumer thread: it must not block.
     */
    void receive(String kindPrefix, BiConsumer<String, byte[]> receiver);
}
