package dev.pulsebus.command;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * One control's state per scope key, bounded: at most {@code capacity} keys, and when a new key would
 * exceed it, the key used least recently is evicted and counted. Strict LRU, so the table is a
 * {@link LinkedHashMap} in access order; every access holds this table's monitor, which also makes a
 * control's check-and-update atomic. Matching a command takes no lock; only a call that reaches a
 * control does, for one hash lookup and a relink.
 */
final class ControlTable<S> {

    final int capacity;
    final LongAdder evictions = new LongAdder();
    private final Map<String, S> map;

    ControlTable(int capacity) {
        this.capacity = capacity;
        this.map = new LinkedHashMap<>(Math.min(capacity, 1024) * 4 / 3 + 1, 0.75f, true) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<String, S> eldest) {
                if (size() > ControlTable.this.capacity) {
                    evictions.increment();
                    return true;
                }
                return false;
            }
        };
    }

    /** The state of {@code key}, marked as just used; {@code null} if absent. Hold the monitor. */
    S get(String key) {
        return map.get(key);
    }

    /** Adds {@code key}, evicting the least recently used key if the table is full. Hold the monitor. */
    void put(String key, S state) {
        map.put(key, state);
    }

    synchronized int size() {
        return map.size();
    }

    synchronized boolean contains(String key) {
        return map.containsKey(key);
    }

    long evictions() {
        return evictions.sum();
    }
}
