package dev.pulsebus.bus;

import dev.pulsebus.internal.Require;
import dev.pulsebus.internal.CallCosts;
import dev.pulsebus.internal.SlowCalls;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Delivers any Java object to the handlers subscribed to its type or to one of its supertypes
 * (subscribing to {@code Object} receives everything).
 *
 * <h2>Order</h2>
 * Handlers of one event run in priority order, highest first, and in subscription order among equal
 * priorities. An {@link Interceptor} may stop the rest of the dispatch.
 *
 * <h2>Threads</h2>
 * Inline handlers run on the publishing thread, before {@link #publish} returns. Blocking handlers
 * ({@link SubscriptionBuilder#blocking()}) run on virtual threads: at most
 * {@link Builder#maxBlockingPending(int)} accepted-but-unfinished blocking tasks exist at once; past that
 * bound the publisher waits up to {@link Builder#blockingOverflowWait(Duration)} (default: not at all)
 * and then the task is dropped, counted in {@code pulsebus_bus_blocking_rejected_total} and warned about
 * in the log. Events with equal ordering keys run one at a time in publish order, across all blocking
 * subscriptions.
 *
 * <h2>Changes during a dispatch</h2>
 * A dispatch works on the subscriptions that existed when it began: one subscribed meanwhile sees the
 * next event, not this one. One cancelled meanwhile is skipped if not yet reached.
 *
 * <h2>Cost</h2>
 * Publishing to a type seen before takes no lock and allocates nothing when only inline handlers are
 * involved: the handler array of each event class is resolved once and cached until the next
 * subscribe or cancel. Counting is striped ({@link java.util.concurrent.atomic.LongAdder}); handler
 * latency is sampled on one event in {@link Builder#latencySampling(int)}, and so is the slow-handler
 * warning ({@link Builder#slowHandler(Duration)}) of inline handlers.
 *
 * <p>All methods are thread-safe.
 */
public interface EventBus extends AutoCloseable {

    /** A bus with default settings and no meter registry. */
    static EventBus create() {
        return builder().build();
    }

    static Builder builder() {
        return new Builder();
    }

    /** Subscribes an inline handler at priority 0 for {@code type} and its subtypes. */
    <T> Subscription subscribe(Class<T> type, EventHandler<? super T> handler);

    /** Starts describing a subscription for {@code type} and its subtypes. */
    <T> SubscriptionBuilder<T> on(Class<T> type);

    /**
     * Delivers {@code event} to its subscribers. Inline handlers have run when this returns; blocking ones
     * have been accepted (or dropped, see the class documentation). An event that no subscription
     * accepted (none matched its type, or every filter refused it) goes to the dead-event hook.
     *
     * @return the number of subscriptions the event was delivered to: inline handlers run, plus blocking
     *     tasks accepted (a blocking task dropped at the bound is not counted)
     * @throws IllegalStateException once the bus is closed
     */
    int publish(Object event);

    /**
     * Refuses further publishes, then waits up to {@link Builder#closeTimeout(Duration)} for accepted
     * blocking tasks to finish, and removes this bus's meters from the registry. Idempotent.
     */
    @Override
    void close();

    /** Settings of an {@link EventBus}. Not thread-safe; build once. */
    final class Builder {
        MeterRegistry meterRegistry;
        Consumer<Object> deadEvents; // none: dead events are counted only
        int maxBlockingPending = 10_000;
        Duration blockingOverflowWait = Duration.ZERO;
        Duration closeTimeout = Duration.ofSeconds(10);
        int latencySampling = 1024;
        CallCosts callCosts = CallCosts.off();
        Duration slowHandler = SlowCalls.DEFAULT_THRESHOLD;

        Builder() {
        }

        /** Where the bus registers its meters ({@code pulsebus.events.*}, {@code pulsebus.handler.*}). */
        public Builder meterRegistry(MeterRegistry registry) {
            this.meterRegistry = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /**
         * Sees, on the publishing thread, each event that no subscription accepted. Exceptions it throws
         * are logged and counted like a handler's.
         */
        public Builder deadEvents(Consumer<Object> hook) {
            this.deadEvents = Objects.requireNonNull(hook, "hook");
            return this;
        }

        /** The bound on accepted-but-unfinished blocking tasks. Default 10,000. */
        public Builder maxBlockingPending(int max) {
            this.maxBlockingPending = Require.atLeast(max, 1, "maxBlockingPending");
            return this;
        }

        /**
         * How long a publisher waits for room when the blocking bound is reached before the task is
         * dropped. Default zero: never wait, so that an I/O thread is never stalled.
         */
        public Builder blockingOverflowWait(Duration wait) {
            this.blockingOverflowWait = Require.notNegative(wait, "blockingOverflowWait");
            return this;
        }

        /** How long {@link EventBus#close()} waits for blocking tasks. Default 10 s. */
        public Builder closeTimeout(Duration timeout) {
            this.closeTimeout = Require.notNegative(timeout, "closeTimeout");
            return this;
        }

        /**
         * Inline handler latency is timed on one event in {@code n} (a power of two; 1 times every event).
         * Default 1024. Blocking handlers are always timed.
         */
        public Builder latencySampling(int n) {
            this.latencySampling = Require.powerOfTwo(n, "latencySampling");
            return this;
        }

        /**
         * A handler run this long or longer is slow: logged at WARN with its module, name and event type (the
         * first time, then at most once a minute per handler) and counted in
         * {@code pulsebus_handler_slow_total{module}}. Inline handlers are judged on the sampled runs
         * ({@link #latencySampling}), so the check costs the unsampled ones nothing; blocking handlers on
         * every run. Default 1 s; zero turns it off.
         */
        public Builder slowHandler(Duration threshold) {
            this.slowHandler = Require.notNegative(threshold, "slowHandler");
            return this;
        }

        /**
         * Where module handlers' costs are measured (CPU time and bytes allocated on one call in
         * {@link CallCosts#sampleEvery()} or fewer); the runtime passes the one table it shares with the command
         * router. Default: none.
         */
        public Builder callCosts(CallCosts costs) {
            this.callCosts = Objects.requireNonNull(costs, "costs");
            return this;
        }

        public EventBus build() {
            return new DefaultEventBus(this);
        }
    }
}
