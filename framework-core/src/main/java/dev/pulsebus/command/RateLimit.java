package dev.pulsebus.command;

import dev.pulsebus.internal.LruTable;

/**
 * At most {@code limit} calls in any window of {@code windowMillis} per key: a sliding log of the last
 * {@code limit} call times in a ring. A call is granted when fewer than {@code limit} calls are logged
 * after {@code now - window}; a call exactly one window after the oldest logged one is granted.
 */
final class RateLimit extends Control {

    private final int limit;
    private final long windowMillis;
    private final LruTable<State> table;

    private static final class State extends KeyState {
        final long[] times;
        int head;
        int count;

        State(int limit) {
            times = new long[limit];
        }

        long oldest() {
            return times[head];
        }

        void dropOldest() {
            head = (head + 1) % times.length;
            count--;
        }

        void add(long t) {
            times[(head + count) % times.length] = t;
            count++;
        }

        void removeNewest() {
            count--;
        }
    }

    RateLimit(int limit, long windowMillis, Scope scope, int capacity) {
        super(scope, Outcome.RATE_LIMITED, "rate_limit");
        this.limit = limit;
        this.windowMillis = windowMillis;
        this.table = new LruTable<>(capacity);
    }

    @Override
    long tryAcquire(String key, long now) {
        synchronized (table) {
            State s = table.get(key);
            if (s == null) {
                s = new State(limit);
                table.put(key, s);
            }
            while (s.count > 0 && s.oldest() <= now - windowMillis) {
                s.dropOldest();
            }
            if (s.count < limit) {
                s.add(now);
                return GRANTED;
            }
            return s.refuse(s.oldest() + windowMillis, now);
        }
    }

    @Override
    SharedControls.Ask ask(String sharedKey, long now) {
        return new SharedControls.Ask(label, sharedKey, limit, windowMillis, "", 0);
    }

    @Override
    void release(String key) {
        synchronized (table) {
            State s = table.get(key);
            if (s != null && s.count > 0) {
                s.removeNewest();
            }
        }
    }

    @Override
    String refusal(Messages messages, String command, long waitMillis) {
        return messages.format("rate_limited", "command", command, "limit", limit,
                "window", messages.duration(windowMillis), "wait", messages.duration(waitMillis));
    }

    @Override
    LruTable<?> table() {
        return table;
    }
}
