package dev.pulsebus.telegram;

/**
 * The Bot API answered a call with {@code "ok": false}: its {@code error_code} (the HTTP status, e.g. 400,
 * 403, 429) and {@code description} ("Forbidden: bot was kicked from the group chat"), and for 429 the
 * {@code parameters.retry_after} seconds. A send's stage fails with it once it is not retried.
 */
public final class TelegramApiException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String method;
    private final int errorCode;
    private final String description;
    private final int retryAfterSeconds;

    TelegramApiException(String method, int errorCode, String description, int retryAfterSeconds) {
        super(method + " failed: " + errorCode + " " + description);
        this.method = method;
        this.errorCode = errorCode;
        this.description = description;
        this.retryAfterSeconds = retryAfterSeconds;
    }

    /** The Bot API method called ({@code sendMessage}, ...). */
    public String method() {
        return method;
    }

    public int errorCode() {
        return errorCode;
    }

    /** Telegram's own words. */
    public String description() {
        return description;
    }

    /** For 429: how long to wait before the next call to this chat; else 0. */
    public int retryAfterSeconds() {
        return retryAfterSeconds;
    }
}
