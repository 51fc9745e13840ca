/**
 * OneBot v11 and v12 adapters: {@link dev.pulsebus.onebot.OneBotAdapter} speaks to a OneBot
 * implementation (NapCat, Lagrange.OneBot, go-cqhttp, Walle-Q, ...) over forward WebSocket, reverse
 * WebSocket or HTTP, turns its events into the records of {@code dev.pulsebus.event} and sends the
 * pipeline's replies and the bot's actions ({@link dev.pulsebus.onebot.OneBotActions}) back.
 *
 * <p>What is shared by both versions: frames ({@code dev.pulsebus.netty.WebSocketMessages}: text frames aggregated up to
 * {@code max_frame_bytes}), the action table ({@code Link}: echo matching, retcode failures, timeouts,
 * in-flight actions failed on disconnect), the bounded queue of a forward connection that is down, the
 * inbound lanes, bad-frame counting. What differs is one {@code Protocol} per version ({@code V11Protocol},
 * {@code V12Protocol}), with v11's decoder ({@code V11Decoder}: straight from the frame's bytes, no tree on the hot path) and
 * segment codec ({@code V11Segments}, {@code CqCode}).
 *
 * <p>Netty's I/O threads only parse frames and complete the wire's bookkeeping; events reach the
 * pipeline on virtual-thread lanes (one chat always on the same lane), and action results complete on a
 * virtual thread, so no bot code runs on an I/O thread.
 *
 * <p>It may import the JDK, Netty, Jackson, Micrometer, SLF4J, the core packages {@code event},
 * {@code pipeline}, {@code platform}, {@code config} and {@code internal}, {@code dev.pulsebus.adapter} and
 * {@code dev.pulsebus.netty}; never {@code dev.pulsebus.server}, {@code cluster} (actions are relayed through
 * the SPI's {@code InstanceMessaging}), {@code storage} or another platform ({@code ArchitectureTest}).
 */
@org.jspecify.annotations.NullMarked
package dev.pulsebus.onebot;
