package dev.pulsebus.irc;

import java.util.function.DoubleSupplier;

/**
 * The delays between connection attempts: 0.5 s doubling to at most 60 s, each drawn between half of it and
 * all of it (many bots cut off by one netsplit do not come back in step); {@link #reset} once a connection
 * registered. Confined to the connecting thread. (The module's own: a platform plug-in uses no PulseBus
 * internals.)
 */
final class Reconnects {

    static final long BASE_MILLIS = 500;
    static final long CAP_MILLIS = 60_000;

    private final DoubleSupplier random;
    private int attempts;

    Reconnects(DoubleSupplier random) {
        this.random = random;
    }

    long next() {
        long full = Math.min(CAP_MILLIS, BASE_MILLIS << Math.min(attempts, 16));
        attempts++;
        return full / 2 + (long) (random.getAsDouble() * (full - full / 2));
    }

    void reset() {
        attempts = 0;
    }
}
