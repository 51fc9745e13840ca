package dev.pulsebus.command;

import dev.pulsebus.internal.LruTable;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;

/**
 * At most {@code limit} calls per calendar day or week per key, in the router clock's zone. Counts are
 * written through to the {@link QuotaStore} and read from it when a key is not in the table (first use,
 * or evicted), so a persistent store carries quotas across restarts.
 */
final class Quota extends Control {

    private final int limit;
    private final QuotaPeriod period;
    private final ZoneId zone;
    private final String command;
    private final QuotaStore store;
    private final LruTable<State> table;

    private static final class State extends KeyState {
        LocalDate start;
        long endMillis;
        int used;
    }

    Quota(int limit, QuotaPeriod period, Scope scope, int capacity, ZoneId zone, String command,
          QuotaStore store) {
        super(scope, Outcome.QUOTA, "quota");
        this.limit = limit;
        this.period = period;
        this.zone = zone;
        this.command = command;
        this.store = store;
        this.table = new LruTable<>(capacity);
    }

    @Override
    long tryAcquire(String key, long now) {
        synchronized (table) {
            State s = table.get(key);
            if (s == null || now >= s.endMillis) {
                if (s == null) {
                    s = new State();
                    table.put(key, s);
                }
                Instant at = Instant.ofEpochMilli(now);
                s.start = period.start(at, zone);
                s.endMillis = period.endMillis(at, zone);
                s.used = store.used(command, key, s.start);
            }
            if (s.used < limit) {
                s.used++;
                store.record(command, key, s.start, s.used);
                return GRANTED;
            }
            return s.refuse(s.endMillis, now);
        }
    }

    @Override
    SharedControls.Ask ask(String sharedKey, long now) {
        Instant at = Instant.ofEpochMilli(now);
        return new SharedControls.Ask(label, sharedKey, limit, 0, period.start(at, zone).toString(),
                period.endMillis(at, zone));
    }

    @Override
    String periodKey(long now) {
        return period.start(Instant.ofEpochMilli(now), zone).toString();
    }

    @Override
    void release(String key) {
        synchronized (table) {
            State s = table.get(key);
            if (s != null && s.used > 0) {
                s.used--;
                store.record(command, key, s.start, s.used);
            }
        }
    }

    @Override
    String refusal(Messages messages, String command, long waitMillis) {
        return messages.format("quota", "command", command, "limit", limit,
                "period", messages.format(period == QuotaPeriod.DAY ? "period.day" : "period.week"),
                "wait", messages.duration(waitMillis));
    }

    @Override
    LruTable<?> table() {
        return table;
    }
}
