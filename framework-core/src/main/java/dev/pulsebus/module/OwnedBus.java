package dev.pulsebus.module;

import dev.pulsebus.bus.EventBus;
import dev.pulsebus.bus.EventHandler;
import dev.pulsebus.bus.Interceptor;
import dev.pulsebus.bus.Subscription;
import dev.pulsebus.bus.SubscriptionBuilder;
import dev.pulsebus.internal.RunningHandler;
import java.util.function.Function;
import java.util.function.Predicate;

/** The bus as a module sees it: subscriptions made here are recorded in the module's scope. */
final class OwnedBus implements EventBus {

    private final EventBus bus;
    private final ModuleScope scope;

    OwnedBus(EventBus bus, ModuleScope scope) {
        this.bus = bus;
        this.scope = scope;
    }

    @Override
    public <T> Subscription subscribe(Class<T> type, EventHandler<? super T> handler) {
        return on(type).subscribe(handler);
    }

    @Override
    public <T> SubscriptionBuilder<T> on(Class<T> type) {
        scope.ensureOpen();
        return new Owned<>(bus.on(type).name(scope.name()), scope.asksThroughModule(type));
    }

    @Override
    public int publish(Object event) {
        return bus.publish(event);
    }

    /** The bus belongs to the bot, not to a module. */
    @Override
    public void close() {
        throw new UnsupportedOperationException("module '" + scope.name() + "' cannot close the bot's bus");
    }

    /** A module's handler of message events, as a stall report names it. */
    private record Handler(String module) implements RunningHandler.Named {
        @Override
        public String toString() {
            return "a message handler of module " + module;
        }
    }

    private final class Owned<T> implements SubscriptionBuilder<T> {
        private final SubscriptionBuilder<T> inner;
        /** Whether message events are handed over bound to the module's reply channel (its asks are its own). */
        private final boolean rebind;

        Owned(SubscriptionBuilder<T> inner, boolean rebind) {
            this.inner = inner;
            this.rebind = rebind;
        }

        @Override
        public SubscriptionBuilder<T> priority(int priority) {
            inner.priority(priority);
            return this;
        }

        @Override
        public SubscriptionBuilder<T> filter(Predicate<? super T> filter) {
            inner.filter(filter);
            return this;
        }

        @Override
        public SubscriptionBuilder<T> once() {
            inner.once();
            return this;
        }

        @Override
        public SubscriptionBuilder<T> blocking() {
            inner.blocking();
            return this;
        }

        @Override
        public SubscriptionBuilder<T> blocking(Function<? super T, ?> orderingKey) {
            inner.blocking(orderingKey);
            return this;
        }

        @Override
        public SubscriptionBuilder<T> name(String name) {
            inner.name(scope.name() + "/" + name);
            return this;
        }

        /**
         * Message events' handlers run on an adapter's lane, named there (a stall report names it, an unload of the
         * module interrupts it) and given events bound to the module's reply channel.
         */
        @Override
        public Subscription subscribe(EventHandler<? super T> handler) {
            if (!rebind) {
                return scope.own(inner.subscribe(handler));
            }
            RunningHandler.Named named = new Handler(scope.name());
            return scope.own(inner.subscribe(e -> {
                RunningHandler.Named caller = RunningHandler.naming(named);
                try {
                    handler.handle(scope.rebind(e));
                } finally {
                    RunningHandler.naming(caller);
                }
            }));
        }

        @Override
        public Subscription intercept(Interceptor<? super T> interceptor) {
            return scope.own(inner.intercept(rebind ? e -> interceptor.handle(scope.rebind(e)) : interceptor));
        }
    }
}
