package dev.pulsebus.command;

/**
 * A call's arguments do not fit the command. Thrown by the {@link CommandCall} accessors (and by
 * handlers for their own checks); the router answers the user with the message and the usage line.
 */
public final class CommandArgumentException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public CommandArgumentException(String message) {
        super(message, null, false, false);
    }
}
