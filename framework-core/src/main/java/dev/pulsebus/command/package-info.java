/**
 * The command engine: {@link dev.pulsebus.command.CommandRouter} parses a message into a command
 * call and runs it with its arguments, permissions, cooldowns, rate limits, quotas and help text, and
 * runs blocking commands whose dialogs wait for answers ({@code call.askText}).
 *
 * <p>It may import the JDK, SLF4J, Micrometer, {@code dev.pulsebus.event} (an answer is a message event)
 * and {@code dev.pulsebus.internal}; not the bus, the pipeline or the modules, which use it.
 */
package dev.pulsebus.command;
