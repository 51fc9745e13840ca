package dev.pulsebus.kv;

import org.jspecify.annotations.Nullable;

/**
 * A KV call that could not be done: bad input (a key too long, a value too large, text that is not
 * valid UTF-8), a closed store, a full write queue, or a database that failed. The message says which;
 * a database failure carries its cause. A write that fails with it was not acknowledged, and whether it
 * reached the database is unknown only when the database failed mid-commit.
 */
public final class KvException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public KvException(String message) {
        super(message);
    }

    public KvException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
