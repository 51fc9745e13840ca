package dev.pulsebus.runtime;

import dev.pulsebus.config.Section;
import dev.pulsebus.internal.CallCosts;
import java.util.Set;

/**
 * {@code [bus]}: when a handler is slow, when it is stalled, and how often the cost of modules' calls is measured.
 *
 * @param slowHandlerMs a handler or command past this is logged and counted as slow ({@code slow_handler_ms},
 *                      1,000; 0: never)
 * @param stallMs       a handler past this is stalled: logged, {@code /health} DEGRADED, its lane's other chats
 *                      moved on ({@code stall_ms}, 10,000; 0: never)
 * @param costSampleEvery one call in this many of each module's command or handler has its CPU time and bytes
 *                      measured, or fewer for calls too short to afford it ({@code cost_sample_every}, 16;
 *                      0: never)
 */
public record BusSettings(int slowHandlerMs, int stallMs, int costSampleEvery) {

    /** The section's keys. */
    public static final Set<String> KEYS = Set.of("slow_handler_ms", "stall_ms", "cost_sample_every");
    /** Every setting at its default. */
    public static final BusSettings DEFAULTS = new BusSettings(1000, 10_000, CallCosts.DEFAULT_SAMPLE_EVERY);

    /** Reads {@code [bus]}; an error names the setting and where it is set. */
    public static BusSettings read(Section s) {
        return new BusSettings(s.integer("slow_handler_ms", DEFAULTS.slowHandlerMs, 0, 3_600_000),
                s.integer("stall_ms", DEFAULTS.stallMs, 0, 3_600_000),
                s.integer("cost_sample_every", DEFAULTS.costSampleEvery, 0, CallCosts.MAX_INTERVAL));
    }

    public static Builder builder() {
        return DEFAULTS.toBuilder();
    }

    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Builds {@link BusSettings}. Not thread-safe. */
    public static final class Builder {
        private int slowHandlerMs;
        private int stallMs;
        private int costSampleEvery;

        private Builder(BusSettings s) {
            this.slowHandlerMs = s.slowHandlerMs;
            this.stallMs = s.stallMs;
            this.costSampleEvery = s.costSampleEvery;
        }

        public Builder slowHandlerMs(int slowHandlerMs) {
            this.slowHandlerMs = slowHandlerMs;
            return this;
        }

        public Builder stallMs(int stallMs) {
            this.stallMs = stallMs;
            return this;
        }

        public Builder costSampleEvery(int costSampleEvery) {
            this.costSampleEvery = costSampleEvery;
            return this;
        }

        public BusSettings build() {
            return new BusSettings(slowHandlerMs, stallMs, costSampleEvery);
        }
    }
}
