package dev.pulsebus.platform;

import java.util.function.BiConsumer;

/**
 * Messages between the instances of a cluster, for a platform whose connection to a bot reaches one instance
 * while its events are handled on another (a OneBot reverse WebSocket): broadcasts, messages to one instance,
 * claims that only one instance wins, and leases that one instance holds at a time (a Telegram bot polled by
 * one instance). At most once: a message sent while the broker is down is lost (the sender times out).
 * Thread-safe.
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

    /** What {@link #lease} found. */
    enum Lease {
        /** This instance holds the lease, for the ttl asked, counted from before it asked. */
        HELD,
        /** Another instance holds it. */
        ELSEWHERE,
        /** The shared store did not answer: who holds it is not known. */
        UNKNOWN
    }

    /**
     * Takes the lease {@code name} for {@code ttlMillis} when nobody holds it, or renews it for {@code ttlMillis}
     * when this instance (this run of it) holds it already; one instance holds it at a time. The holder renews it
     * every third of the ttl or so, and stops doing what the lease guards as soon as it hears
     * {@link Lease#ELSEWHERE}, and, whatever it hears, before {@code ttlMillis} have passed since it last asked
     * and heard {@link Lease#HELD} (by its own clock: the lease may be another's from then on). While the store
     * does not answer ({@link Lease#UNKNOWN}) nobody can take it; the holder may go on until that moment.
     */
    Lease lease(String name, long ttlMillis);

    /** Gives the lease {@code name} up when this instance holds it, so another may take it at once. */
    void release(String name);

    /**
     * Hands the messages whose kind starts with {@code kindPrefix} (broadcast by other instances or sent to
     * this one) to {@code receiver}, on the cluster's consumer thread: it must not block.
     */
    void receive(String kindPrefix, BiConsumer<String, byte[]> receiver);
}
