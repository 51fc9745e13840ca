/**
 * The event bus: {@link dev.pulsebus.bus.EventBus} and its subscriptions, interceptors, ordered
 * (keyed) dispatch and the blocking lanes that keep slow handlers off the posting thread.
 *
 * <p>It may import the JDK, SLF4J, Micrometer and {@code dev.pulsebus.internal}; no other PulseBus
 * package, so that everything else can be built on it.
 */
package dev.pulsebus.bus;
