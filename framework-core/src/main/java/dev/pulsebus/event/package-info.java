/**
 * The events a bot sees: messages (private, group, channel), notices, requests and meta events,
 * their segments and reply channels, asks ({@code Ask}, {@code AskException}) that wait for a chat's next
 * message, and {@code OneBotJson}, which reads them from OneBot JSON.
 *
 * <p>It may import the JDK, Jackson, {@code dev.pulsebus.bus} (an event is posted on it) and
 * {@code dev.pulsebus.internal}.
 */
package dev.pulsebus.event;
