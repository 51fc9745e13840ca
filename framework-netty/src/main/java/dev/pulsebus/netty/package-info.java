/**
 * Netty glue shared by the server and the adapters that speak HTTP or WebSocket on Netty themselves:
 * backpressure on a connection whose peer does not read ({@link dev.pulsebus.netty.WriteLimit}), and a
 * WebSocket's messages and sending side as the platform SPI's neutral types
 * ({@link dev.pulsebus.netty.WebSocketMessages}, {@link dev.pulsebus.netty.ChannelSession}).
 */
@NullMarked
package dev.pulsebus.netty;

import org.jspecify.annotations.NullMarked;
