package dev.pulsebus.module;

import org.jspecify.annotations.Nullable;

/**
 * A handle on a service another module provides ({@code module.call}). {@link #get()} returns the
 * provider's object, a plain interface to call directly: no reflection, no serialization. Each
 * {@code get()} counts one call of the caller module on the provider module
 * ({@code pulsebus_module_calls_total{caller, provider}}). Keep the handle, not the object: the handle
 * follows a reloaded provider, while an object kept past its module's unload would be dead code.
 */
public interface Service<T> {

    /**
     * The provider's object now.
     *
     * @throws ModuleException when no loaded module provides the service (never did, or unloaded)
     */
    T get();

    /** Whether a loaded module provides it now. */
    boolean available();

    /** The module that provides it now, or null. */
    @Nullable String provider();
}
