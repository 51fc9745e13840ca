package dev.pulsebus.internal;

import java.util.function.DoubleSupplier;

/**
 * Reconnect delays: 0.5 s doubling to at most 30 s, each one drawn between half of it and all of it
 * (jitter, so that many bots cut off together do not come back in step); {@link #reset} after a
 * connection (or a call) that worked. Shared by the adapters that retry a platform: OneBot's forward
 * client, Telegram's poller and sender. Confined to one thread at a time. Internal to PulseBus: not an API.
 */
public final class Backoff {

    public static final long BASE_MILLIS = 500;
    public static final long CAP_MILLIS = 30_000;

    private final DoubleSupplier random;
    private int attempts;

    public Backoff(DoubleSupplier random) {
        this.random = random;
    }

    /** The delay before the next attempt, in ms. */
    public long next() {
        long full = Math.min(CAP_MILLIS, BASE_MILLIS << Math.min(attempts, 16));
        attempts++;
        return full / 2 + (long) (random.getAsDouble() * (full - full / 2));
    }

    public void reset() {
        attempts = 0;
    }
}
