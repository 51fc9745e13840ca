/**
 * JMH benchmarks of asks answered by a chat's next message.
 *
 * <p>They may import the JDK, JMH, {@code dev.pulsebus.event}, {@code dev.pulsebus.pipeline} and the
 * router suite's {@code AsksFixture}; not the harness in {@code dev.pulsebus.bench}.
 */
package dev.pulsebus.bench.conversation;
