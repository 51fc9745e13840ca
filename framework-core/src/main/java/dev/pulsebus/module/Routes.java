package dev.pulsebus.module;

import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
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

    /** Whether any method is routed at {@code path} (for 405 rather than 404). */
    public boolean hasPath(String path) {
        String suffix = " " + path;
        return byKey.keySet().stream().anyMatch(k -> k.endsWith(suffix));
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
