package dev.pulsebus.module;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Collections;
import java.util.Set;
import java.util.WeakHashMap;
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
        /** The handles that cache {@link #impl}: cleared with it on withdrawal. */
        private final Set<Handle<?>> handles = Collections.newSetFromMap(new WeakHashMap<>());

        Provision(String provider, Object impl) {
            this.provider = provider;
            this.impl = impl;
        }

        synchronized void bind(Handle<?> h) {
            handles.add(h);
        }

        synchronized void withdraw() {
            impl = null;
            for (Handle<?> h : handles) {
                h.impl = null;
            }
            handles.clear();
        }
    }

    private final ConcurrentHashMap<Class<?>, Provision> byType = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, PairCalls> calls = new ConcurrentHashMap<>();
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
            p.withdraw();
            byType.remove(type, p);
        };
    }

    @Nullable Provision current(Class<?> type) {
        return byType.get(type);
    }

    /** The calls of one caller module on one provider module: what left handles, plus what live handles hold. */
    private static final class PairCalls {
        final LongAdder settled = new LongAdder();
        final Set<Handle<?>> handles = Collections.newSetFromMap(new WeakHashMap<>());

        synchronized double total() {
            long sum = settled.sum();
            for (Handle<?> h : handles) {
                sum += h.calls;
            }
            return sum;
        }

        synchronized void join(Handle<?> h) {
            handles.add(h);
        }

        synchronized void leave(Handle<?> h) {
            if (handles.remove(h)) {
                settled.add(h.calls);
            }
        }
    }

    private PairCalls pair(String caller, String provider) {
        return calls.computeIfAbsent(caller + "\u0000" + provider, k -> {
            PairCalls p = new PairCalls();
            if (registry != null) {
                FunctionCounter.builder("pulsebus.module.calls", p, PairCalls::total)
                        .description("Service calls between modules (module.call)")
                        .tag("caller", caller).tag("provider", provider).register(registry);
            }
            return p;
        });
    }

    /** Calls so far from {@code caller} to {@code provider}. */
    long calls(String caller, String provider) {
        PairCalls p = calls.get(caller + "\u0000" + provider);
        return p == null ? 0 : (long) p.total();
    }

    <T> Service<T> handle(String caller, Class<T> type) {
        return new Handle<>(this, caller, type);
    }

    /**
     * A caller's handle: caches the provision; rebinds when the provider changes. Calls are counted in a
     * plain field of the handle (no atomic instruction on the call path): exact when one thread calls
     * through a handle, approximate when several threads share one.
     */
    private static final class Handle<T> implements Service<T> {
        private final ServiceDirectory directory;
        private final String caller;
        private final Class<T> type;
        /** The provider's object, cached here so a call reads one field; cleared when it is withdrawn. */
        volatile @Nullable Object impl;
        private @Nullable PairCalls pair;
        long calls;

        Handle(ServiceDirectory directory, String caller, Class<T> type) {
            this.directory = directory;
            this.caller = caller;
            this.type = type;
        }

        @Override
        @SuppressWarnings("unchecked") // provide() checked that the object implements the type
        public T get() {
            Object o = impl;
            if (o == null) {
                o = rebind();
            }
            calls++;
            return (T) o;
        }

        private synchronized Object rebind() {
            Provision p = directory.current(type);
            Object o = p == null ? null : p.impl;
            if (p == null || o == null) {
                throw unavailable();
            }
            if (pair != null) {
                pair.leave(this);
            }
            calls = 0;
            pair = directory.pair(caller, p.provider);
            pair.join(this);
            impl = o;
            p.bind(this);
            if (p.impl == null) { // withdrawn while we bound: do not keep it
                impl = null;
                throw unavailable();
            }
            return o;
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
