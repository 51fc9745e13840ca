package dev.pulsebus.config;

import java.time.Duration;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * One immutable state of the configuration: flat dotted keys ({@code server.port},
 * {@code modules.weather.city}) to values (String, Long, Double, Boolean). Getters never allocate for
 * values of the right type and return the default when a key is absent. An environment override is the
 * text it was given ({@code 0123} stays {@code 0123} for {@link #getString}); a typed getter parses it.
 * A getter throws {@link ConfigException} when the value is there but of another type.
 */
public final class ConfigSnapshot {

    private final Map<String, Object> values;
    private final Map<String, String> origins;

    ConfigSnapshot(Map<String, Object> values) {
        this(values, Map.of());
    }

    /** @param origins where each key's value comes from ({@link #origin}) */
    ConfigSnapshot(Map<String, Object> values, Map<String, String> origins) {
        this.values = values;
        this.origins = origins;
    }

    /**
     * Where {@code key}'s value comes from, to name in an error: {@code "config/pulsebus.toml, line 12"},
     * {@code "environment variable PULSEBUS_SERVER_PORT"}; the nearest table's line for a key inside an
     * inline table; null when it is not known (a default, a value set from code without a file).
     */
    public @Nullable String origin(String key) {
        String k = key;
        while (true) {
            String o = origins.get(k);
            int dot = k.lastIndexOf('.');
            if (o != null || dot < 0) {
                return o;
            }
            k = k.substring(0, dot);
        }
    }

    Map<String, String> origins() {
        return origins;
    }

    public String getString(String key, String dflt) {
        Object v = values.get(key);
        return v == null ? dflt : v.toString();
    }

    public long getLong(String key, long dflt) {
        Object v = values.get(key);
        if (v == null) {
            return dflt;
        }
        if (v instanceof Long l) {
            return l;
        }
        if (v instanceof String text) { // an environment override: text until read as a number
            try {
                return Long.parseLong(text.trim());
            } catch (NumberFormatException e) {
                throw wrongType(key, v, "an integer");
            }
        }
        throw wrongType(key, v, "an integer");
    }

    public int getInt(String key, int dflt) {
        long v = getLong(key, dflt);
        if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
            throw new ConfigException(key + " must fit an int, was " + v);
        }
        return (int) v;
    }

    public double getDouble(String key, double dflt) {
        Object v = values.get(key);
        if (v == null) {
            return dflt;
        }
        if (v instanceof Number n) {
            return n.doubleValue();
        }
        if (v instanceof String text) {
            try {
                return Double.parseDouble(text.trim());
            } catch (NumberFormatException e) {
                throw wrongType(key, v, "a number");
            }
        }
        throw wrongType(key, v, "a number");
    }

    public boolean getBoolean(String key, boolean dflt) {
        Object v = values.get(key);
        if (v == null) {
            return dflt;
        }
        if (v instanceof Boolean b) {
            return b;
        }
        if (v instanceof String text) {
            String t = text.trim();
            if (t.equalsIgnoreCase("true") || t.equalsIgnoreCase("false")) {
                return Boolean.parseBoolean(t);
            }
        }
        throw wrongType(key, v, "true or false");
    }

    /** A duration written as milliseconds (an integer) or ISO-8601 text ({@code "PT30S"}). */
    public Duration getDuration(String key, Duration dflt) {
        Object v = values.get(key);
        if (v == null) {
            return dflt;
        }
        if (v instanceof Long ms) {
            return Duration.ofMillis(ms);
        }
        if (v instanceof String text && !text.isBlank() && text.trim().chars().allMatch(Character::isDigit)) {
            return Duration.ofMillis(getLong(key, 0));
        }
        try {
            return Duration.parse(v.toString());
        } catch (RuntimeException e) {
            throw wrongType(key, v, "milliseconds or an ISO-8601 duration like PT30S");
        }
    }

    public boolean has(String key) {
        return values.containsKey(key);
    }

    /** The keys under {@code prefix + "."}, with the prefix removed, to their values as text, sorted. */
    public Map<String, String> section(String prefix) {
        String p = prefix + ".";
        Map<String, String> out = new TreeMap<>();
        for (Map.Entry<String, Object> e : values.entrySet()) {
            if (e.getKey().startsWith(p)) {
                out.put(e.getKey().substring(p.length()), e.getValue().toString());
            }
        }
        return Collections.unmodifiableMap(out);
    }

    Map<String, Object> values() {
        return values;
    }

    /** Every key and value. */
    public Map<String, Object> asMap() {
        return Collections.unmodifiableMap(values);
    }

    private ConfigException wrongType(String key, Object v, String wanted) {
        String o = origin(key);
        return new ConfigException((o == null ? "" : o + ": ") + key + " must be " + wanted + ", was " + v);
    }
}
