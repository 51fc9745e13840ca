package dev.pulsebus.config;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Environment variables as settings: {@code PULSEBUS_SERVER_PORT} sets {@code server.port}; {@code __}
 * stands for a dot after the section ({@code PULSEBUS_MODULES_WEATHER__CITY} sets
 * {@code modules.weather.city}). The values stay text, typed only where a setting is read typed.
 * PulseBus's own variables that are not settings ({@link #NOT_SETTINGS}) are left alone.
 */
final class EnvOverrides {

    /** The launcher's ({@code ./pulsebus}: which java, its extra options, the startup cache) and the test tools' npm folder. */
    static final Set<String> NOT_SETTINGS = Set.of("PULSEBUS_JAVA", "PULSEBUS_JAVA_OPTS", "PULSEBUS_AOT",
            "PULSEBUS_NPM_CACHE");

    private EnvOverrides() {
    }

    /** The settings {@code env} overrides, by dotted key. */
    static Map<String, Object> of(Map<String, String> env) {
        Map<String, Object> out = new HashMap<>();
        for (Map.Entry<String, String> e : env.entrySet()) {
            String key = keyOf(e.getKey());
            if (key != null) {
                out.put(key, e.getValue()); // text as given: typed only where a setting is read typed
            }
        }
        return out;
    }

    /** The variable each setting {@code env} overrides comes from, by dotted key, as an error names it. */
    static Map<String, String> origins(Map<String, String> env) {
        Map<String, String> out = new HashMap<>();
        for (String name : env.keySet()) {
            String key = keyOf(name);
            if (key != null) {
                out.put(key, "environment variable " + name);
            }
        }
        return out;
    }

    /** The setting {@code variable} overrides, or null when it names none (see {@link Config#keyOf}). */
    static @Nullable String keyOf(String variable) {
        if (!variable.startsWith("PULSEBUS_") || NOT_SETTINGS.contains(variable)) {
            return null;
        }
        String rest = variable.substring("PULSEBUS_".length()).toLowerCase(Locale.ROOT);
        int cut = rest.indexOf('_');
        if (cut <= 0 || cut == rest.length() - 1) {
            return null;
        }
        return rest.substring(0, cut) + "." + rest.substring(cut + 1).replace("__", ".");
    }
}
