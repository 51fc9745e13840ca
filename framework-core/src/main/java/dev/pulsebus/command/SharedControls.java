package dev.pulsebus.command;

/**
 * Where cooldowns, rate limits and quotas are decided when several instances of one bot share them (a
 * Redis server, in {@code framework-cluster}). Each method decides and records one call atomically in the
 * shared store, with the semantics of the router's own tables: the same grants, the same waits, and the
 * refusal told once per block (across all instances), so the answers are the same as on one instance.
 *
 * <p>Keys are the router's: the command's path, the control and the scope key, joined; implementations
 * may prefix them. A method returns {@link #GRANTED}, {@link #SILENT}, a wait in millis (tell the caller),
 * or {@link #UNAVAILABLE} when the shared store cannot answer now: the router then decides on its local
 * table, so an outage never refuses every command. Implementations must answer {@code UNAVAILABLE} quickly
 * while the store is known to be down, and must be thread-safe.
 */
public interface SharedControls {

    /** The call is granted and recorded. */
    long GRANTED = Control.GRANTED;
    /** Refused; the caller was already told for this block. */
    long SILENT = Control.SILENT;
    /** The shared store cannot answer: decide locally. */
    long UNAVAILABLE = Long.MIN_VALUE;

    /** One call per {@code windowMillis} per key; see {@link Command#cooldown}. */
    long cooldown(String key, long windowMillis, long now);

    /** At most {@code limit} calls in any sliding {@code windowMillis} per key; see {@link Command#rateLimit}. */
    long rateLimit(String key, int limit, long windowMillis, long now);

    /**
     * At most {@code limit} calls per key in the calendar period {@code periodKey} (its first day) that ends
     * at {@code periodEndMillis}; see {@link Command#quota}.
     */
    long quota(String key, String periodKey, int limit, long periodEndMillis, long now);

    /**
     * Takes back the grant just made to {@code key} by the control {@code control} ({@code cooldown},
     * {@code rate_limit} or {@code quota}; for a quota, in {@code periodKey}): another control refused the call,
     * or its arguments were bad.
     *
     * @return false when the shared store cannot answer (the router then releases its local table)
     */
    boolean release(String control, String key, String periodKey);

    /**
     * One control of a call, for {@link #acquireAll}: {@code control} is {@code cooldown} (with
     * {@code windowMillis}), {@code rate_limit} ({@code limit} in {@code windowMillis}) or {@code quota}
     * ({@code limit} in the period {@code periodKey} that ends at {@code periodEndMillis}); unused fields are 0
     * or empty.
     */
    record Ask(String control, String key, int limit, long windowMillis, String periodKey, long periodEndMillis) {
    }

    /**
     * What {@link #acquireAll} decided: every ask granted ({@link #ALL_GRANTED}), the store unable to answer
     * ({@link #NOT_ANSWERED}), or the ask at index {@code refused} refused with {@code answer} ({@link #SILENT} or
     * the millis to wait), the grants of the asks before it taken back.
     */
    record Decision(int refused, long answer) {
        public static final Decision ALL_GRANTED = new Decision(-1, GRANTED);
        public static final Decision NOT_ANSWERED = new Decision(-1, UNAVAILABLE);
    }

    /**
     * Decides the controls of one call in their order: as if each were asked in turn and, at the first refusal,
     * the grants before it released; a store that can do it in one go (one round trip, atomically) overrides this.
     * When the store cannot answer, nothing stays granted and {@link Decision#NOT_ANSWERED} is returned: the
     * router then decides the call on its own tables.
     */
    default Decision acquireAll(Ask[] asks, long now) {
        for (int i = 0; i < asks.length; i++) {
            Ask a = asks[i];
            long r = switch (a.control()) {
                case "cooldown" -> cooldown(a.key(), a.windowMillis(), now);
                case "rate_limit" -> rateLimit(a.key(), a.limit(), a.windowMillis(), now);
                case "quota" -> quota(a.key(), a.periodKey(), a.limit(), a.periodEndMillis(), now);
                default -> throw new IllegalArgumentException("no control " + a.control());
            };
            if (r != GRANTED) {
                for (int j = i - 1; j >= 0; j--) {
                    release(asks[j].control(), asks[j].key(), asks[j].periodKey());
                }
                return r == UNAVAILABLE ? Decision.NOT_ANSWERED : new Decision(i, r);
            }
        }
        return Decision.ALL_GRANTED;
    }
}
