package dev.pulsebus.command;

import java.time.LocalDate;

/**
 * Where quota counters live beyond the router's bounded in-memory table, so that a quota survives a
 * restart and an eviction. {@code framework-storage} provides a persistent one; the default keeps
 * nothing, so a restart (or an eviction at the table's cap) forgets the counts.
 *
 * <p>Called while the quota table is locked: implementations answer from memory and write behind.
 */
public interface QuotaStore {

    /** Calls of {@code command} used by {@code scopeKey} in the period starting {@code periodStart}. */
    int used(String command, String scopeKey, LocalDate periodStart);

    /** Records that {@code used} calls are now used in that period. */
    void record(String command, String scopeKey, LocalDate periodStart, int used);

    /** Keeps nothing: the router's table is the only memory of quotas. */
    static QuotaStore none() {
        return NoQuotaStore.INSTANCE;
    }
}

enum NoQuotaStore implements QuotaStore {
    INSTANCE;

    @Override
    public int used(String command, String scopeKey, LocalDate periodStart) {
        return 0;
    }

    @Override
    public void record(String command, String scopeKey, LocalDate periodStart, int used) {
    }
}
