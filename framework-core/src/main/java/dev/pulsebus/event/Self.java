package dev.pulsebus.event;

import java.util.Objects;

/** A bot's own identity: the platform it is on and its user id there. */
public record Self(String platform, String userId) {

    public Self {
        Objects.requireNonNull(platform, "platform");
        Checks.id("userId", userId);
    }
}
