package dev.pulsebus.internal;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * A bounded map from string keys to state: at most {@code capacity} keys, and when a new key would
 * exceed it, the key used least recently is evicted and counted. Strict LRU, so it is a
 * {@link LinkedHashMap} in access order, and every access holds this table's monitor, which also makes a
 * caller's check-and-update atomic: {@code synchronized (table) { get; decide; put }}. Used where PulseBus
 * must remember per key without growing: command control tables, inbound deduplication. Internal to
 * PulseBus: not an API.
 */
public final class LruTable<S> {

    private final int capacity;
    private final LongAdder evictions = new LongAdder();
    private final Map<String, S> map;

    public LruTable(int capacity) {
        this.capacity = capacity;
        this.map = new LinkedHashMap<>(Math.min(capacity, 1024) * 4 / 3 + 1, 0.75f, true) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<String, S> eldest) {
                if (size() > LruTable.this.capacity) {
                    evictions.increment();
                    return true;
                }
                return false;
            }
        };
    }

    /** The state of {@code key}, marked as just used; {@code null} if absent. Hold the monitor. */
    public @Nullable S get(String key) {
        return map.get(key);
    }

    /** Adds {@code key}, evicting the least recently used key if the table is full. Hold the monitor. */
    public void put(String key, S state) {
        map.put(key, state);
    }

    public synchronized int size() {
        return map.size();
    }

    public long evictions() {
        return evictions.sum();
    }
}
