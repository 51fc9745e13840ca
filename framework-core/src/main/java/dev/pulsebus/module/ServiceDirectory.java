package dev.pulsebus.module;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * Who provides which service. A provider's entry is cleared (its object reference dropped) when its
 * module unloads, so handles held by other modules neither call into dead code nor keep the unloaded
 * class loader reachable.
 */
final class ServiceDirectory {

    /** One provision: the provider and its object, dropped on withdrawal. */
    static final class Provision {
        final String provider;
        volatile @Nullable Object impl;

        Provision(String provider, Object impl) {
            this.provider = provider;
            this.impl = impl;
        }
    }

    private final ConcurrentHashMap<Class<?>, Provision> byType = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, LongAdder> calls = new ConcurrentHashMap<>();
    private final @Nullable MeterRegistry registry;

    ServiceDirectory(@Nullable MeterRegistry registry) {
        this.registry = registry;
    }

    /** Registers; the returned runnable withdraws it. */
    Runnable provide(String provider, Class<?> type, Object impl) {
        if (!type.isInstance(impl)) {
            throw new ModuleException("module '" + provider + "' provides " + type.getName() + " with a "
                    + impl.getClass().getName() + ", which does not implement it");
        }
        Provision p = new Provision(provider, impl);
        Provision prev = byType.putIfAbsent(type, p);
        if (prev != null) {
            throw new ModuleException("module '" + provider + "' cannot provide " + type.getName()
                    + ": module '" + prev.provider + "' provides it already");
        }
        return () -> {
            p.impl = null;
            byType.remove(type, p);
        };
    }

    @Nullable Provision current(Class<?> type) {
        return byType.get(type);
    }

    /** The counter of calls from {@code caller} to {@code provider}, registered as a meter on first use. */
    LongAdder counter(String caller, String provider) {
        return calls.computeIfAbsent(caller + "\u0000" + provider, k -> {
            LongAdder adder = new LongAdder();
            if (registry != null) {
                FunctionCounter.builder("pulsebus.module.calls", adder, LongAdder::sum)
                        .description("Service calls between modules (module.call)")
                        .tag("caller", caller).tag("provider", provider).register(registry);
            }
            return adder;
        });
    }

    <T> Service<T> handle(String caller, Class<T> type) {
        return new Handle<>(this, caller, type);
    }

    /** A caller's handle: caches the provision and its counter; rebinds when the provider changes. */
    private static final class Handle<T> implements Service<T> {
        private final ServiceDirectory directory;
        private final String caller;
        private final Class<T> type;
        private volatile @Nullable Provision bound;
        private volatile @Nullable LongAdder counter;

        Handle(ServiceDirectory directory, String caller, Class<T> type) {
            this.directory = directory;
            this.caller = caller;
            this.type = type;
        }

        @Override
        public T get() {
            Provision p = bound;
            Object impl = p == null ? null : p.impl;
            if (impl == null) {
                p = rebind();
                impl = p.impl;
                if (impl == null) {
                    throw unavailable();
                }
            }
            counter.increment();
            return type.cast(impl);
        }

        private Provision rebind() {
            Provision p = directory.current(type);
            if (p == null) {
                bound = null;
                throw unavailable();
            }
            counter = directory.counter(caller, p.provider);
            bound = p;
            return p;
        }

        private ModuleException unavailable() {
            return new ModuleException("no loaded module provides " + type.getName() + " (asked by module '"
                    + caller + "'); its provider was unloaded or never loaded");
        }

        @Override
        public boolean available() {
            Provision p = directory.current(type);
            return p != null && p.impl != null;
        }

        @Override
        public @Nullable String provider() {
            Provision p = directory.current(type);
            return p == null ? null : p.provider;
        }
    }
}
