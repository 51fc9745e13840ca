/**
 * IRC as a PulseBus platform ({@code [adapters.irc]}): {@link dev.pulsebus.irc.IrcProvider}, found by
 * {@link java.util.ServiceLoader} through the platform SPI, connects one bot to one IRC server (plain or TLS,
 * SASL PLAIN), joins its channels, hands what is said there to the pipeline and sends the answers under a
 * flood-control token bucket. docs/IRC.md describes it.
 */
@NullMarked
package dev.pulsebus.irc;

import org.jspecify.annotations.NullMarked;
