package dev.pulsebus.onebot;

/**
 * Why an action's stage failed: the implementation answered with a {@code retcode} other than 0
 * ({@link Kind#FAILED}), no answer came within {@code action_timeout_ms} ({@link Kind#TIMEOUT}), the
 * connection was lost while it was in flight ({@link Kind#DISCONNECTED}), or it was not sent at all
 * ({@link Kind#REFUSED}: no connection for the bot, a full queue); an action that waited its whole timeout
 * for its turn on a connection whose implementation answers slowly fails as {@link Kind#TIMEOUT}, unsent.
 */
public final class OneBotActionException extends RuntimeException {

    /** What went wrong. */
    public enum Kind { FAILED, TIMEOUT, DISCONNECTED, REFUSED }

    private final String action;
    private final Kind kind;
    private final long retcode;

    OneBotActionException(String action, Kind kind, long retcode, String message) {
        super(message, null, false, false);
        this.action = action;
        this.kind = kind;
        this.retcode = retcode;
    }

    static OneBotActionException failed(String action, long retcode, String message) {
        return new OneBotActionException(action, Kind.FAILED, retcode,
                "OneBot action " + action + " failed with retcode " + retcode + (message.isEmpty() ? "" : ": " + message));
    }

    static OneBotActionException timeout(String action, long ms) {
        return new OneBotActionException(action, Kind.TIMEOUT, -1,
                "OneBot action " + action + " got no response within " + ms + " ms (action_timeout_ms)");
    }

    /** Waited its whole timeout for the window of actions out on its connection to open: never sent. */
    static OneBotActionException timeoutWaiting(String action, long ms, int window) {
        return new OneBotActionException(action, Kind.TIMEOUT, -1, "OneBot action " + action + " waited " + ms
                + " ms (action_timeout_ms) and was not sent: " + window + " actions out on its connection waited for"
                + " their responses all that time (the implementation answers slowly)");
    }

    static OneBotActionException disconnected(String action) {
        return new OneBotActionException(action, Kind.DISCONNECTED, -1,
                "OneBot action " + action + " was in flight when the connection was lost");
    }

    static OneBotActionException refused(String action, String why) {
        return new OneBotActionException(action, Kind.REFUSED, -1, "OneBot action " + action + " not sent: " + why);
    }

    public String action() {
        return action;
    }

    public Kind kind() {
        return kind;
    }

    /** The implementation's {@code retcode} for {@link Kind#FAILED}, else -1. */
    public long retcode() {
        return retcode;
    }
}
