package dev.pulsebus.irc;

/**
 * The flood control of what the bot says: {@code burst} tokens at most, refilled at {@code rate} a second;
 * a line takes one. Starts full. Confined to the writer's thread.
 */
final class TokenBucket {

    private final double perNano;
    private final double burst;
    private double tokens;
    private long last;

    TokenBucket(IrcSettings.SendRate rate, long nowNanos) {
        this.perNano = rate.linesPerSecond() / 1e9;
        this.burst = rate.burst();
        this.tokens = burst;
        this.last = nowNanos;
    }

    /** How long until a token is there (0: now). */
    long nanosUntilToken(long nowNanos) {
        tokens = Math.min(burst, tokens + (nowNanos - last) * perNano);
        last = nowNanos;
        return tokens >= 1 ? 0 : (long) Math.ceil((1 - tokens) / perNano);
    }

    /** Takes a token; call after {@link #nanosUntilToken} said 0. */
    void take() {
        tokens -= 1;
    }
}
