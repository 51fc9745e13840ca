/**
 * The {@code longpoll} suite: a thousand polls parked in one room and released by one message, and the
 * memory a parked poll costs, against a real server.
 *
 * <p>It may import the JDK, HdrHistogram, PulseBus, the harness and {@code dev.pulsebus.bench.http}.
 */
@org.jspecify.annotations.NullMarked
package dev.pulsebus.bench.longpoll;
