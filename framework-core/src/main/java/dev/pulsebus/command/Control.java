package dev.pulsebus.command;

import dev.pulsebus.internal.LruTable;
import org.jspecify.annotations.Nullable;

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

    /** Where the control is decided when instances share it; null: this router's table alone. */
    private @Nullable SharedControls shared;
    /** The command's path, in the shared store's keys. */
    private String path = "";

    /** Decides in {@code shared} from now on, this table standing in while it cannot answer. */
    final void share(SharedControls shared, String path) {
        this.shared = shared;
        this.path = path;
    }

    /**
     * Takes back the grant just made to {@code key} where it was made: in the shared store ({@code inShared}; when
     * that cannot answer now, the grant stays there until it expires) or in this router's table.
     */
    final void giveBack(String key, long now, boolean inShared) {
        SharedControls s = shared;
        if (inShared && s != null) {
            s.release(label, path + '\u0000' + key, periodKey(now));
        } else {
            release(key);
        }
    }

    /**
     * Decides every one of {@code controls} (a command's, in order) for {@code source} in the shared store at
     * once ({@link SharedControls#acquireAll}: one round trip where the store can), granting and recording the
     * call or refusing it; null when they are not shared. An answer of {@link SharedControls#UNAVAILABLE}: the
     * store cannot answer, nothing was granted there (decide on this router's tables, {@link #tryAcquire}).
     */
    static SharedControls.@Nullable Decision acquireShared(Control[] controls, CommandSource source, long now) {
        SharedControls s = controls[0].shared;
        if (s == null) {
            return null;
        }
        SharedControls.Ask[] asks = new SharedControls.Ask[controls.length];
        for (int i = 0; i < controls.length; i++) {
            Control c = controls[i];
            asks[i] = c.ask(c.path + '\u0000' + c.scope.keyOf(source), now);
        }
        return s.acquireAll(asks, now);
    }

    /** This control's rule for {@code sharedKey} at {@code now}, for {@link SharedControls#acquireAll}. */
    abstract SharedControls.Ask ask(String sharedKey, long now);

    /** The calendar period a quota counts in at {@code now}; empty for the other controls. */
    String periodKey(long now) {
        return "";
    }

    /**
     * Grants the call to {@code key} at {@code now} (epoch millis) and records it in this router's table, or
     * refuses it.
     *
     * @return {@link #GRANTED}, {@link #SILENT}, or the millis to wait (tell the caller)
     */
    abstract long tryAcquire(String key, long now);

    /** Takes back the grant just made to {@code key} in this router's table (another control refused the call). */
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
