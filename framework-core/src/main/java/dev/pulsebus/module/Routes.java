package dev.pulsebus.module;

import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * The HTTP routes modules registered, by method and full path ({@code GET /modules/weather/today}). The
 * server looks requests up here; a module's routes go when it unloads. Thread-safe.
 */
public final class Routes {

    private final ConcurrentHashMap<String, HttpRoute> byKey = new ConcurrentHashMap<>();

    /** The route for {@code method} and {@code path}, or null. */
    public @Nullable HttpRoute find(String method, String path) {
        return byKey.get(method + " " + path);
    }

    /**
     * The methods routed at {@code path}, in order and as an {@code Allow} header lists them
     * ({@code "GET, PUT"}), or null when none is (for 405 with Allow rather than 404).
     */
    public @Nullable String allowed(String path) {
        String suffix = " " + path;
        String methods = byKey.keySet().stream().filter(k -> k.endsWith(suffix))
                .map(k -> k.substring(0, k.length() - suffix.length())).sorted().collect(Collectors.joining(", "));
        return methods.isEmpty() ? null : methods;
    }

    Runnable add(String module, String method, String path, HttpRoute route) {
        Objects.requireNonNull(route, "route");
        if (!path.startsWith("/") || path.contains("..") || path.contains(" ")) {
            throw new ModuleException("module '" + module + "': route path must start with / and have no spaces"
                    + " or '..', was '" + path + "'");
        }
        String key = method.toUpperCase(java.util.Locale.ROOT) + " /modules/" + module + path;
        if (byKey.putIfAbsent(key, route) != null) {
            throw new ModuleException("module '" + module + "': route " + key + " is taken");
        }
        return () -> byKey.remove(key, route);
    }
}
