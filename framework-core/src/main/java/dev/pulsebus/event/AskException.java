package dev.pulsebus.event;

/**
 * Why an {@link Ask} got no answer: the failure of the stage {@link MessageEvent#ask} returned, and what
 * a command's blocking {@code call.await(...)}, {@code askText} and {@code askInt} throw.
 */
public final class AskException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** Why the ask ended without an answer. */
    public enum Reason {
        /** No answer came within the ask's timeout. */
        TIMEOUT,
        /** The user sent the cancel word ({@code /cancel}), or the ask's future was cancelled. */
        CANCELLED,
        /** Its owner went away: the command was unregistered or the module that asked unloaded. */
        UNLOADED,
        /** Too many asks were pending (in its chat or in all) and this one was the oldest. */
        EVICTED,
        /** The pipeline closed, or has no way to ask (the event did not come through one). */
        CLOSED,
        /** A typed ask ({@code askInt}) read its last allowed answer and that was not of the type. */
        INVALID
    }

    private final Reason reason;

    public AskException(Reason reason, String message) {
        super(message);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}
