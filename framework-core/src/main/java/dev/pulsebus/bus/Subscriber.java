package dev.pulsebus.bus;

import dev.pulsebus.internal.CallCosts;
import dev.pulsebus.internal.FailureLog;
import dev.pulsebus.internal.SlowCalls;
import io.micrometer.core.instrument.Timer;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One subscription: what it listens to, how it runs, and its failure bookkeeping. Immutable but for the
 * {@code active} and {@code fired} flags and the failure counters.
 */
final class Subscriber implements Subscription {

    private static final Logger LOG = LoggerFactory.getLogger(EventBus.class);
    private static final VarHandle FIRED;

    static {
        try {
            FIRED = MethodHandles.lookup().findVarHandle(Subscriber.class, "fired", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final Class<?> type;
    final int priority;
    /** Subscription order, the tie-break among equal priorities. */
    final long sequence;
    final boolean blocking;
    /** Inline, unfiltered, not once-only: the publisher only checks {@code active} before calling it. */
    final boolean plain;
    /** Exactly one of {@code handler} and {@code interceptor} is set: one interface call per event. */
    final EventHandler<Object> handler;
    private final Interceptor<Object> interceptor;
    private final Predicate<Object> filter;
    private final Function<Object, Object> orderingKey;
    private final boolean once;
    private final String name;
    private final DefaultEventBus bus;

    private volatile boolean active = true;
    @SuppressWarnings("unused") // through FIRED
    private volatile boolean fired;
    private final FailureLog failures;
    private final SlowCalls.Site slow;
    /** Where a module's handler's calls are measured; null for the bot's own handlers or with costs off. */
    final CallCosts.@Nullable Site cost;

    Subscriber(DefaultEventBus bus, Class<?> type, int priority, long sequence, boolean blocking,
               EventHandler<Object> handler, Interceptor<Object> interceptor, Predicate<Object> filter,
               Function<Object, Object> orderingKey, boolean once, String name, String module) {
        this.bus = bus;
        this.type = type;
        this.priority = priority;
        this.sequence = sequence;
        this.blocking = blocking;
        this.handler = handler;
        this.interceptor = interceptor;
        this.filter = filter;
        this.orderingKey = orderingKey;
        this.once = once;
        this.name = name;
        this.plain = !blocking && filter == null && !once;
        this.failures = new FailureLog(LOG, "Handler '" + name + "'");
        this.slow = bus.slowCalls.site(module, blocking ? "blocking handler" : "handler", name);
        this.cost = bus.costs.site(module, "handler", name);
    }

    /**
     * Whether this subscription takes {@code event}: it is active, its filter accepts, and, if it is a
     * once-only subscription, this caller won the right to fire it.
     */
    boolean accepts(Object event, BusMetrics.TypeMeters meters) {
        if (!active) {
            return false;
        }
        if (filter != null) {
            try {
                if (!filter.test(event)) {
                    return false;
                }
            } catch (Throwable t) {
                failed(t, event, meters);
                return false;
            }
        }
        if (once) {
            if (!FIRED.compareAndSet(this, false, true)) {
                return false;
            }
            cancel();
        }
        return true;
    }

    /**
     * Runs the handler on this thread; a failure is recorded and reads as {@link Propagation#CONTINUE}. A
     * {@code timed} run (a sampled inline one, every blocking one) is recorded in the latency timer, when there
     * is one, and judged slow or not; an untimed one reads no clock.
     */
    Propagation invoke(Object event, BusMetrics.TypeMeters meters, boolean timed) {
        CallCosts.Site c = cost;
        if (c != null && c.due()) {
            int frame = c.start();
            try {
                return invokeTimed(event, meters, timed);
            } finally {
                c.stop(frame);
            }
        }
        return invokeTimed(event, meters, timed);
    }

    private Propagation invokeTimed(Object event, BusMetrics.TypeMeters meters, boolean timed) {
        try {
            if (!timed) {
                return call(event);
            }
            long start = System.nanoTime();
            Propagation p = call(event);
            long took = System.nanoTime() - start;
            Timer timer = blocking ? meters.blockingLatency : meters.inlineLatency;
            if (timer != null) {
                timer.record(took, TimeUnit.NANOSECONDS);
            }
            slow.took(took, event.getClass().getName());
            return p;
        } catch (Throwable t) {
            failed(t, event, meters);
            return Propagation.CONTINUE;
        }
    }

    private Propagation call(Object event) throws Exception {
        if (interceptor != null) {
            return interceptor.handle(event);
        }
        handler.handle(event);
        return Propagation.CONTINUE;
    }

    /** The blocking ordering key of {@code event}; {@code null} for unordered. */
    Object orderingKey(Object event) {
        if (orderingKey != null) {
            return orderingKey.apply(event);
        }
        return event instanceof KeyedEvent keyed ? keyed.orderingKey() : null;
    }

    void failed(Throwable t, Object event, BusMetrics.TypeMeters meters) {
        meters.errors.increment();
        failures.failed(t, "on " + event.getClass().getName() + "; it keeps its subscription, the other handlers ran");
    }

    @Override
    public void cancel() {
        if (active) {
            active = false;
            bus.remove(this);
        }
    }

    @Override
    public boolean isActive() {
        return active;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String toString() {
        return "Subscription[" + name + ", " + type.getName() + ", priority " + priority
                + (blocking ? ", blocking" : "") + (once ? ", once" : "") + (active ? "" : ", cancelled") + "]";
    }
}
