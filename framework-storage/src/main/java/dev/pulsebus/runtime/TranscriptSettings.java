package dev.pulsebus.runtime;

import dev.pulsebus.config.Section;
import java.util.Set;

/**
 * {@code [transcript]}: how much of each chat's history is kept.
 *
 * @param keepPerChat the newest records kept per chat ({@code keep_per_chat}, 10,000)
 * @param maxAgeDays  records older than this many days are removed ({@code max_age_days}, 30)
 */
public record TranscriptSettings(int keepPerChat, int maxAgeDays) {

    /** The section's keys. */
    public static final Set<String> KEYS = Set.of("keep_per_chat", "max_age_days");
    /** Every setting at its default. */
    public static final TranscriptSettings DEFAULTS = new TranscriptSettings(10_000, 30);

    /** Reads {@code [transcript]}; an error names the setting and where it is set. */
    public static TranscriptSettings read(Section s) {
        return new TranscriptSettings(s.integer("keep_per_chat", DEFAULTS.keepPerChat, 1, 100_000_000),
                s.integer("max_age_days", DEFAULTS.maxAgeDays, 1, 36_500));
    }

    public static Builder builder() {
        return DEFAULTS.toBuilder();
    }

    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Builds {@link TranscriptSettings}. Not thread-safe. */
    public static final class Builder {
        private int keepPerChat;
        private int maxAgeDays;

        private Builder(TranscriptSettings s) {
            this.keepPerChat = s.keepPerChat;
            this.maxAgeDays = s.maxAgeDays;
        }

        public Builder keepPerChat(int keepPerChat) {
            this.keepPerChat = keepPerChat;
            return this;
        }

        public Builder maxAgeDays(int maxAgeDays) {
            this.maxAgeDays = maxAgeDays;
            return this;
        }

        public TranscriptSettings build() {
            return new TranscriptSettings(keepPerChat, maxAgeDays);
        }
    }
}
