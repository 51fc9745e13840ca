package dev.pulsebus.command;

import java.util.Locale;

/** What the router did with a message. The metric label is {@link #label()}. */
public enum Outcome {
    /** No prefix (or no required mention): not a command; the message goes on to the event bus. */
    NOT_COMMAND,
    /**
     * A prefix, but no command of that name (nor a pattern or keyword command that takes it); the message
     * goes on to the event bus, unless the router answered it ({@link CommandRouter#answersUnknown()}).
     */
    UNKNOWN,
    /** The handler ran and returned. */
    OK,
    /** The handler threw. */
    ERROR,
    /** Refused: the cooldown has not passed. */
    COOLDOWN,
    /** Refused: the rate limit is used up. */
    RATE_LIMITED,
    /** Refused: the quota of the day or week is used up. */
    QUOTA,
    /** Refused: the permission check said no. */
    DENIED,
    /** The arguments did not fit. */
    BAD_ARGS,
    /** Refused: as many {@linkplain Command#blocking() blocking} calls as allowed are running. */
    BUSY;

    private final String label = name().toLowerCase(Locale.ROOT);

    public String label() {
        return label;
    }

    /** Whether the message was taken by a command (any outcome but {@code NOT_COMMAND} and {@code UNKNOWN}). */
    public boolean matched() {
        return this != NOT_COMMAND && this != UNKNOWN;
    }
}
