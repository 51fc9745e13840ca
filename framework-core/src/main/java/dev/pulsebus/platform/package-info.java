/**
 * The platform SPI: how a chat platform plugs into PulseBus. A {@link dev.pulsebus.platform.PlatformProvider}
 * found by {@link java.util.ServiceLoader} reads its own section ({@code [adapters.<name>]}, through
 * {@link dev.pulsebus.config.Section}) and is started with a {@link dev.pulsebus.platform.PlatformContext}:
 * it registers its adapters with the pipeline, mounts HTTP routes and WebSocket endpoints through the neutral
 * {@link dev.pulsebus.platform.HttpRoutes}, uses the KV store, meters and clock, and in a cluster talks to the
 * other instances through {@link dev.pulsebus.platform.InstanceMessaging}. docs/PLATFORMS.md walks through
 * writing one.
 */
@NullMarked
package dev.pulsebus.platform;

import org.jspecify.annotations.NullMarked;
