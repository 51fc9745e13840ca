package dev.pulsebus.command;

import dev.pulsebus.internal.LruTable;

/** One call per window per key: a call at or after {@code last + window} is granted. */
final class Cooldown extends Control {

    private final long windowMillis;
    private final LruTable<State> table;

    private static final class State extends KeyState {
        long last;
        long previous;
    }

    Cooldown(long windowMillis, Scope scope, int capacity) {
        super(scope, Outcome.COOLDOWN, "cooldown");
        this.windowMillis = windowMillis;
        this.table = new LruTable<>(capacity);
    }

    @Override
    long tryAcquire(String key, long now) {
        synchronized (table) {
            State s = table.get(key);
            if (s == null) {
                s = new State();
                s.last = now;
                s.previous = Long.MIN_VALUE;
                table.put(key, s);
                return GRANTED;
            }
            long until = s.last + windowMillis;
            if (now >= until) {
                s.previous = s.last;
                s.last = now;
                return GRANTED;
            }
            return s.refuse(until, now);
        }
    }

    @Override
    SharedControls.Ask ask(String sharedKey, long now) {
        return new SharedControls.Ask(label, sharedKey, 0, windowMillis, "", 0);
    }

    @Override
    void release(String key) {
        synchronized (table) {
            State s = table.get(key);
            if (s != null) {
                s.last = s.previous;
            }
        }
    }

    @Override
    String refusal(Messages messages, String command, long waitMillis) {
        return messages.format("cooldown", "command", command, "wait", messages.duration(waitMillis));
    }

    @Override
    LruTable<?> table() {
        return table;
    }
}
