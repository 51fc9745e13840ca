package dev.pulsebus.command;

import dev.pulsebus.internal.LruTable;

/**
 * A cooldown, a rate limit or a quota of one command: a bounded {@link LruTable} of per-key state
 * and the rule that grants or refuses a call. A refusal is answered once per block: the first refused
 * call learns how long to wait, the ones after it in the same block are refused silently.
 */
abstract sealed class Control permits Cooldown, RateLimit, Quota {

    /** {@link #tryAcquire} granted the call. */
    static final long GRANTED = -1;
    /** {@link #tryAcquire} refused the call, and the caller was already told for this block. */
    static final long SILENT = -2;

    final Scope scope;
    final Outcome outcome;
    final String label;

    Control(Scope scope, Outcome outcome, String label) {
        this.scope = scope;
        this.outcome = outcome;
        this.label = label;
    }

    /**
     * Grants the call to {@code key} at {@code now} (epoch millis) and records it, or refuses it.
     *
     * @return {@link #GRANTED}, {@link #SILENT}, or the millis to wait (tell the caller)
     */
    abstract long tryAcquire(String key, long now);

    /** Takes back the grant just made to {@code key} (another control refused the call). */
    abstract void release(String key);

    /** The answer to a refusal with {@code waitMillis} to wait. */
    abstract String refusal(Messages messages, String command, long waitMillis);

    abstract LruTable<?> table();

    /** Per-key state of every control: remembers which block's refusal was already answered. */
    static class KeyState {
        private long toldUntil = Long.MIN_VALUE;

        /** Refuses until {@code until}: the wait to tell the first time for this block, then SILENT. */
        final long refuse(long until, long now) {
            if (toldUntil == until) {
                return SILENT;
            }
            toldUntil = until;
            return until - now;
        }
    }
}
