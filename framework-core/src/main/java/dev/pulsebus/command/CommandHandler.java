package dev.pulsebus.command;

/**
 * Runs a command. An exception thrown here is answered with a short apology, counted as outcome
 * {@code error} and logged; a {@link CommandArgumentException} (from the typed accessors) is answered
 * with its message and the usage line, outcome {@code bad_args}.
 */
@FunctionalInterface
public interface CommandHandler {

    void handle(CommandCall call) throws Exception;
}
