package dev.pulsebus.internal;

import java.time.Duration;

/** The argument checks of PulseBus's builders, with messages that name the setting. Internal: not an API. */
public final class Require {

    private Require() {
    }

    public static int atLeast(int value, int min, String what) {
        if (value < min) {
            throw new IllegalArgumentException(what + " must be at least " + min + ", was " + value);
        }
        return value;
    }

    public static int powerOfTwo(int value, String what) {
        if (value < 1 || Integer.bitCount(value) != 1) {
            throw new IllegalArgumentException(what + " must be a power of two, was " + value);
        }
        return value;
    }

    public static Duration positive(Duration d, String what) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(what + " must be positive, was " + d);
        }
        return d;
    }

    public static Duration notNegative(Duration d, String what) {
        if (d == null || d.isNegative()) {
            throw new IllegalArgumentException(what + " must not be negative, was " + d);
        }
        return d;
    }
}
