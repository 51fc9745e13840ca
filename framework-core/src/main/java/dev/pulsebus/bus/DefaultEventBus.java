package dev.pulsebus.bus;

import dev.pulsebus.internal.CallCosts;
import dev.pulsebus.internal.SlowCalls;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link EventBus}. Publishing reads the current {@link Registry} snapshot and walks the cached
 * handler array of the event's class; subscribing and cancelling build a new snapshot under a lock that
 * only writers take.
 */
final class DefaultEventBus implements EventBus {

    private static final Logger LOG = LoggerFactory.getLogger(EventBus.class);

    private final Object writeLock = new Object();
    private final AtomicLong sequence = new AtomicLong();
    private final BusMetrics metrics;
    private final BlockingLanes lanes;
    private final Consumer<Object> deadEvents;
    private final int sampleMask;
    private final long closeTimeoutNanos;
    final SlowCalls slowCalls;
    final CallCosts costs;
    private volatile Registry registry;
    private volatile boolean closed;

    DefaultEventBus(EventBus.Builder b) {
        this.metrics = new BusMetrics(b.meterRegistry);
        this.lanes = new BlockingLanes(b.maxBlockingPending, b.blockingOverflowWait.toNanos());
        this.deadEvents = b.deadEvents;
        this.sampleMask = b.latencySampling - 1;
        this.closeTimeoutNanos = b.closeTimeout.toNanos();
        this.slowCalls = new SlowCalls(b.meterRegistry, b.slowHandler);
        this.costs = b.callCosts;
        this.registry = new Registry(new Subscriber[0], metrics);
        metrics.bindBus(lanes, this);
    }

    @Override
    public <T> Subscription subscribe(Class<T> type, EventHandler<? super T> handler) {
        return on(type).subscribe(handler);
    }

    @Override
    public <T> SubscriptionBuilder<T> on(Class<T> type) {
        return new Spec<>(Objects.requireNonNull(type, "type"));
    }

    @Override
    public int publish(Object event) {
        if (closed) {
            throw new IllegalStateException("event bus is closed");
        }
        Dispatch d = registry.dispatchFor(event.getClass());
        BusMetrics.TypeMeters meters = d.meters;
        meters.published.increment();
        boolean timed = metrics.timed() && (ThreadLocalRandom.current().nextInt() & sampleMask) == 0;
        if (d.handlers != null && !timed) {
            int delivered = publishPlain(event, d);
            if (delivered == 0) {
                dead(event, meters);
            }
            return delivered;
        }
        Subscriber[] subscribers = d.subscribers;
        boolean accepted = false;
        int delivered = 0;
        for (Subscriber s : subscribers) {
            if (s.plain) {
                if (s.isActive()) {
                    accepted = true;
                    delivered++;
                    if (s.invoke(event, meters, timed) == Propagation.STOP) {
                        break;
                    }
                }
                continue;
            }
            if (!s.accepts(event, meters)) {
                continue;
            }
            accepted = true;
            if (!s.blocking) {
                delivered++;
                if (s.invoke(event, meters, timed) == Propagation.STOP) {
                    break;
                }
            } else if (lanes.submit(s.orderingKey(event), () -> s.invoke(event, meters, true))) { // a lane's clock is cheap
                delivered++;
            }
        }
        if (!accepted) {
            dead(event, meters);
        }
        return delivered;
    }

    /** The common case: plain inline handlers only, not timed. */
    private static int publishPlain(Object event, Dispatch d) {
        EventHandler<Object>[] handlers = d.handlers;
        Subscriber[] subscribers = d.subscribers;
        int delivered = 0;
        for (int i = 0; i < handlers.length; i++) {
            Subscriber s = subscribers[i];
            if (s.isActive()) {
                delivered++;
                try {
                    handlers[i].handle(event);
                } catch (Throwable t) {
                    s.failed(t, event, d.meters);
                }
            }
        }
        return delivered;
    }

    private void dead(Object event, BusMetrics.TypeMeters meters) {
        metrics.dead.increment();
        if (deadEvents == null) {
            return;
        }
        try {
            deadEvents.accept(event);
        } catch (Throwable t) {
            meters.errors.increment();
            LOG.error("Dead-event hook failed on {}", event.getClass().getName(), t);
        }
    }

    void remove(Subscriber s) {
        synchronized (writeLock) {
            registry = registry.without(s);
        }
    }

    private Subscriber add(Subscriber s) {
        synchronized (writeLock) {
            if (closed) {
                throw new IllegalStateException("event bus is closed");
            }
            registry = registry.with(s);
        }
        return s;
    }

    int subscriptionCount() {
        return registry.all.length;
    }

    BlockingLanes lanes() {
        return lanes;
    }

    @Override
    public void close() {
        synchronized (writeLock) {
            if (closed) {
                return;
            }
            closed = true;
        }
        if (!lanes.close(closeTimeoutNanos)) {
            LOG.warn("Event bus closed with {} blocking tasks still running after {} ms",
                    lanes.pending(), closeTimeoutNanos / 1_000_000);
        }
        metrics.unbind();
    }

    private final class Spec<T> implements SubscriptionBuilder<T> {
        private final Class<T> type;
        private int priority;
        private Predicate<Object> filter;
        private boolean once;
        private boolean blocking;
        private Function<Object, Object> orderingKey;
        private String name;

        Spec(Class<T> type) {
            this.type = type;
        }

        @Override
        public SubscriptionBuilder<T> priority(int priority) {
            this.priority = priority;
            return this;
        }

        @Override
        @SuppressWarnings("unchecked")
        public SubscriptionBuilder<T> filter(Predicate<? super T> filter) {
            Objects.requireNonNull(filter, "filter");
            Predicate<Object> f = (Predicate<Object>) filter;
            this.filter = this.filter == null ? f : this.filter.and(f);
            return this;
        }

        @Override
        public SubscriptionBuilder<T> once() {
            this.once = true;
            return this;
        }

        @Override
        public SubscriptionBuilder<T> blocking() {
            this.blocking = true;
            this.orderingKey = null;
            return this;
        }

        @Override
        @SuppressWarnings("unchecked")
        public SubscriptionBuilder<T> blocking(Function<? super T, ?> orderingKey) {
            this.blocking = true;
            this.orderingKey = (Function<Object, Object>) Objects.requireNonNull(orderingKey, "orderingKey");
            return this;
        }

        @Override
        public SubscriptionBuilder<T> name(String name) {
            this.name = Objects.requireNonNull(name, "name");
            return this;
        }

        @Override
        @SuppressWarnings("unchecked")
        public Subscription subscribe(EventHandler<? super T> handler) {
            Objects.requireNonNull(handler, "handler");
            return make((EventHandler<Object>) handler, null, handler);
        }

        @Override
        @SuppressWarnings("unchecked")
        public Subscription intercept(Interceptor<? super T> interceptor) {
            Objects.requireNonNull(interceptor, "interceptor");
            if (blocking) {
                throw new IllegalStateException("a blocking subscription runs after publish returns and "
                        + "cannot stop propagation: subscribe it with subscribe(handler)");
            }
            return make(null, (Interceptor<Object>) interceptor, interceptor);
        }

        private Subscription make(EventHandler<Object> h, Interceptor<Object> i, Object original) {
            String n = name != null ? name : type.getSimpleName() + " -> " + handlerName(original);
            return add(new Subscriber(DefaultEventBus.this, type, priority, sequence.incrementAndGet(), blocking,
                    h, i, filter, orderingKey, once, n, name == null ? SlowCalls.NO_MODULE : moduleOf(name)));
        }
    }

    /** The module of a subscription named {@code name}: a module's are named {@code <module>} or {@code <module>/<name>}. */
    static String moduleOf(String name) {
        int slash = name.indexOf('/');
        return slash < 0 ? name : name.substring(0, slash);
    }

    /** A lambda's class reads {@code Owner$$Lambda/0x...}: keep the owner, which is what a reader wants. */
    static String handlerName(Object handler) {
        String n = handler.getClass().getName();
        int lambda = n.indexOf("$$Lambda");
        return lambda >= 0 ? n.substring(0, lambda) + " (lambda)" : n;
    }
}
