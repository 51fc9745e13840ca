package dev.pulsebus.bus;

import java.util.Arrays;
import java.util.Comparator;
import java.util.concurrent.ConcurrentHashMap;

/**
 * An immutable snapshot of the subscriptions, in dispatch order (priority descending, then subscription
 * order), with a cache of what each event class resolves to. A subscribe or cancel replaces the whole
 * snapshot, so a cached {@link Dispatch} is never stale for the snapshot that holds it, and publishing
 * needs no lock: one volatile read of the snapshot and one {@link ConcurrentHashMap#get}.
 */
final class Registry {

    /** Priority descending, then subscription order. */
    static final Comparator<Subscriber> ORDER = new Comparator<>() {
        @Override
        public int compare(Subscriber a, Subscriber b) {
            int byPriority = Integer.compare(b.priority, a.priority);
            return byPriority != 0 ? byPriority : Long.compare(a.sequence, b.sequence);
        }
    };

    final Subscriber[] all;
    private final ConcurrentHashMap<Class<?>, Dispatch> cache = new ConcurrentHashMap<>();
    private final BusMetrics metrics;

    Registry(Subscriber[] all, BusMetrics metrics) {
        this.all = all;
        this.metrics = metrics;
    }

    Dispatch dispatchFor(Class<?> type) {
        Dispatch d = cache.get(type);
        return d != null ? d : resolve(type);
    }

    private Dispatch resolve(Class<?> type) {
        Subscriber[] matching = new Subscriber[all.length];
        int n = 0;
        for (Subscriber s : all) {
            if (s.type.isAssignableFrom(type)) {
                matching[n++] = s;
            }
        }
        matching = Arrays.copyOf(matching, n);
        Dispatch d = new Dispatch(matching, metrics.forType(type));
        Dispatch prev = cache.putIfAbsent(type, d);
        return prev != null ? prev : d;
    }

    Registry with(Subscriber s) {
        Subscriber[] next = Arrays.copyOf(all, all.length + 1);
        next[all.length] = s;
        Arrays.sort(next, ORDER);
        return new Registry(next, metrics);
    }

    Registry without(Subscriber s) {
        int i = Arrays.asList(all).indexOf(s);
        if (i < 0) {
            return this;
        }
        Subscriber[] next = new Subscriber[all.length - 1];
        System.arraycopy(all, 0, next, 0, i);
        System.arraycopy(all, i + 1, next, i, all.length - i - 1);
        return new Registry(next, metrics);
    }
}
