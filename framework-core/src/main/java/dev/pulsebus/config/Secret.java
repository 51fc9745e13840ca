package dev.pulsebus.config;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A setting that must not be printed: a token, a password, a key. {@link #toString()} is {@code ****}
 * ({@code ""} when empty, so that an unset secret still shows as unset), so a settings record that holds one
 * prints no secret in a log line, an exception or a debugger's summary; {@link #reveal()} is the one way to
 * the value, for the code that sends or checks it. {@link #equals} and {@link #matches} compare in time
 * that does not depend on where the values differ. Immutable.
 */
public final class Secret {

    /** No secret: empty. */
    public static final Secret NONE = new Secret("");

    private final String value;

    private Secret(String value) {
        this.value = value;
    }

    /** {@code value} as a secret ({@link #NONE} when empty). */
    public static Secret of(String value) {
        Objects.requireNonNull(value, "value");
        return value.isEmpty() ? NONE : new Secret(value);
    }

    /** The value itself: to send it or check against it, never to print it. */
    public String reveal() {
        return value;
    }

    public boolean isEmpty() {
        return value.isEmpty();
    }

    /** Whether {@code given} is this secret, compared in constant time; never for an empty secret. */
    public boolean matches(@Nullable String given) {
        return !value.isEmpty() && given != null && MessageDigest.isEqual(value.getBytes(StandardCharsets.UTF_8),
                given.getBytes(StandardCharsets.UTF_8));
    }

    /** Equal values, compared in constant time. */
    @Override
    public boolean equals(@Nullable Object o) {
        return o instanceof Secret s && MessageDigest.isEqual(value.getBytes(StandardCharsets.UTF_8),
                s.value.getBytes(StandardCharsets.UTF_8));
    }

    /** The same for every non-empty secret: a hash would tell something of the value. */
    @Override
    public int hashCode() {
        return value.isEmpty() ? 0 : 1;
    }

    /** {@code ****}, or {@code ""} when empty. */
    @Override
    public String toString() {
        return value.isEmpty() ? "" : "****";
    }
}
