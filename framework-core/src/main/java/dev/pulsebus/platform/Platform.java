package dev.pulsebus.platform;

import java.util.List;
import java.util.Map;

/**
 * A platform that {@link PlatformProvider#create} started: what it tells about itself while the bot runs.
 * Its adapters are owned by the pipeline; closing the bot stops them.
 */
public interface Platform {

    /**
     * Its bots for {@code /health} and {@code pulsebus_component_up}: a component name
     * ({@code onebot11:10001}, {@code irc:libera}) to whether it is up, those down first, bounded (a platform
     * with many bots lists some and counts the rest in {@link #unlistedBots}). Called at each {@code /health}
     * whose {@link #healthState} changed, and at each scrape.
     */
    default Map<String, Boolean> health() {
        return Map.of();
    }

    /** How many of its bots {@link #health} leaves out. */
    default int unlistedBots() {
        return 0;
    }

    /**
     * A number that changes whenever {@link #health}, {@link #unlistedBots} or {@link #warnings} would: cheap,
     * read at every {@code /health}, which is written again only when it changed.
     */
    default long healthState() {
        return 0;
    }

    /** What is weakly set up, for {@code /health}'s {@code warnings} (an intake without a secret). */
    default List<String> warnings() {
        return List.of();
    }
}
