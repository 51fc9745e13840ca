package dev.pulsebus.storage;

import dev.pulsebus.command.QuotaStore;
import dev.pulsebus.internal.FailureLog;
import dev.pulsebus.kv.Kv;
import dev.pulsebus.kv.KvException;
import java.time.Duration;
import java.time.LocalDate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Quota counters kept in the KV namespace {@code pulsebus.quota}, one key per command, period and
 * scope, expiring a day after the longest period (a week) so old periods clean themselves up. Reads are
 * the KV's cached reads; writes go behind through the group-commit writer (the router calls this under
 * its table lock and must not wait for a commit). A failed write is logged; the router's table still
 * holds the count.
 */
final class KvQuotaStore implements QuotaStore {

    static final String NAMESPACE = "pulsebus.quota";
    private static final Logger LOG = LoggerFactory.getLogger(KvQuotaStore.class);
    private static final Duration KEEP = Duration.ofDays(8);

    private final Kv kv;
    private final FailureLog failures = new FailureLog(LOG, "Quota persistence");

    KvQuotaStore(Kv kv) {
        this.kv = kv;
    }

    @Override
    public int used(String command, String scopeKey, LocalDate periodStart) {
        try {
            String v = kv.get(key(command, scopeKey, periodStart));
            return v == null ? 0 : Integer.parseInt(v);
        } catch (KvException | NumberFormatException e) {
            failures.failed(e, "reading " + command + " for " + scopeKey);
            return 0;
        }
    }

    @Override
    public void record(String command, String scopeKey, LocalDate periodStart, int used) {
        kv.setAsync(key(command, scopeKey, periodStart), Integer.toString(used), KEEP)
                .whenComplete((ok, e) -> {
                    if (e != null) {
                        failures.failed(e, "recording " + command + " for " + scopeKey);
                    }
                });
    }

    /** {@code periodStart/command/scopeKey}; a scope key too long for a KV key is replaced by its hash. */
    static String key(String command, String scopeKey, LocalDate periodStart) {
        String key = periodStart + "/" + command + "/" + scopeKey;
        if (key.length() <= KvCodec.MAX_KEY_CHARS) {
            return key;
        }
        String head = periodStart + "/" + command;
        return head.substring(0, Math.min(head.length(), 200)) + "/#" + Integer.toHexString(scopeKey.hashCode())
                + Integer.toHexString(scopeKey.length());
    }
}
