/**
 * Configuration: {@link dev.pulsebus.config.Config} reads a TOML file (framework settings and one table
 * per module) with environment overrides into immutable snapshots, writes changes made from code to a
 * runtime file beside it, and follows edits of the files while the bot runs.
 *
 * <p>It may import the JDK, SLF4J, Jackson (TOML) and {@code dev.pulsebus.internal}; no other PulseBus
 * package.
 */
@org.jspecify.annotations.NullMarked
package dev.pulsebus.config;
