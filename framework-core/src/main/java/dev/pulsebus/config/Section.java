package dev.pulsebus.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.pulsebus.internal.Json;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * One section of the configuration ({@code [adapters.irc]}, {@code [cluster]}) read with the checks every
 * section makes: no unknown key, booleans, integers in their range, lists, URLs with a host and an allowed
 * scheme, secrets. Values are the text they are (an environment override stays text; a TOML array comes as
 * its JSON text). Every error is a {@link ConfigException} that names where the value comes from (the file
 * and line, or the environment variable) and the setting ({@code config/pulsebus.toml, line 12:
 * adapters.irc.port must be between 1 and 65535, was 0}). Immutable.
 */
public final class Section {

    private final String name;
    private final Map<String, String> values;
    private final Map<String, String> origins;
    private final String source;
    /** Where a getter's error goes instead of being thrown (its default then read), or null: thrown. */
    private final @Nullable List<String> errors;

    private Section(String name, Map<String, String> values, Map<String, String> origins, String source,
                    @Nullable List<String> errors) {
        this.name = name;
        this.values = Map.copyOf(values);
        this.origins = Map.copyOf(origins);
        this.source = source;
        this.errors = errors;
    }

    /**
     * This section with its getters' errors added to {@code errors} instead of thrown, each getter then returning
     * its default: to check every setting and report every error at once.
     */
    public Section collectingInto(List<String> errors) {
        return new Section(name, values, origins, source, errors);
    }

    /** Throws {@code e}, or adds its message to the errors collected and returns {@code dflt}. */
    private <T> T fail(ConfigException e, T dflt) {
        if (errors == null) {
            throw e;
        }
        errors.add(e.getMessage());
        return dflt;
    }

    /**
     * Section {@code name} of {@code snapshot}: its keys (those under {@code name + "."}) as text, each with
     * where it comes from.
     *
     * @param source what to name in an error when the snapshot does not know where a value comes from
     * @throws ConfigException naming a key that is not in {@code known}, and the keys that are
     */
    public static Section of(ConfigSnapshot snapshot, String name, Set<String> known, String source) {
        String prefix = name + ".";
        Map<String, String> values = new LinkedHashMap<>();
        Map<String, String> origins = new LinkedHashMap<>();
        for (Map.Entry<String, Object> e : new java.util.TreeMap<>(snapshot.asMap()).entrySet()) {
            if (e.getKey().startsWith(prefix)) {
                String key = e.getKey().substring(prefix.length());
                values.put(key, e.getValue().toString());
                String o = snapshot.origin(e.getKey());
                if (o != null) {
                    origins.put(key, o);
                }
            }
        }
        String o = snapshot.origin(name);
        return of(name, values, origins, known, o != null ? o : source);
    }

    /**
     * Section {@code name} holding {@code values} (key to text), read from {@code source}; {@code origins}
     * names where single keys come from when that is more precise.
     *
     * @throws ConfigException naming a key that is not in {@code known}, and the keys that are
     */
    public static Section of(String name, Map<String, String> values, Map<String, String> origins, Set<String> known,
                             String source) {
        Section s = new Section(name, values, origins, source, null);
        for (String key : new java.util.TreeSet<>(values.keySet())) {
            if (!known.contains(key)) {
                throw new ConfigException(s.where(key) + ": unknown setting " + name + "." + key + "; known in ["
                        + name + "]: " + String.join(", ", known.stream().sorted().toList()));
            }
        }
        return s;
    }

    /** The section's name, {@code adapters.irc}. */
    public String name() {
        return name;
    }

    /** Whether {@code key} is set. */
    public boolean has(String key) {
        return values.containsKey(key);
    }

    /** The keys set, to their text. */
    public Map<String, String> values() {
        return values;
    }

    /** Where {@code key}'s value comes from (its file and line, its variable), else where the section does. */
    public String where(String key) {
        return origins.getOrDefault(key, source);
    }

    /** The setting's text, or {@code dflt} when it is not set. */
    public String text(String key, String dflt) {
        return values.getOrDefault(key, dflt);
    }

    /** The setting as a {@link Secret} (never printed), {@link Secret#NONE} when not set. */
    public Secret secret(String key) {
        return Secret.of(text(key, ""));
    }

    /** A list of texts (see {@link #strings}); empty when not set. */
    public List<String> list(String key) {
        try {
            return strings(text(key, ""));
        } catch (IllegalArgumentException e) {
            return fail(error(key, key + " " + e.getMessage()), List.of());
        }
    }

    /**
     * The texts in a list setting's value: a TOML array of strings ({@code ["a", "b"]}, which the file hands
     * over as its JSON text), or texts separated by commas (as an environment variable gives them); each
     * stripped, empty ones dropped.
     *
     * @throws IllegalArgumentException saying what is wrong, to follow the setting's name
     */
    public static List<String> strings(String text) {
        List<String> given = new ArrayList<>();
        if (text.strip().startsWith("[")) {
            try {
                for (JsonNode t : Json.MAPPER.readTree(text)) {
                    if (!t.isTextual()) {
                        throw new IllegalArgumentException("is an array with " + t + " in it: each element is a"
                                + " text in quotes");
                    }
                    given.add(t.textValue());
                }
            } catch (JsonProcessingException e) {
                throw new IllegalArgumentException("is neither a text nor an array of them");
            }
        } else {
            given.addAll(List.of(text.split(",", -1)));
        }
        return given.stream().map(String::strip).filter(t -> !t.isEmpty()).toList();
    }

    /** {@code true} or {@code false} (any case), {@code dflt} when not set. */
    public boolean bool(String key, boolean dflt) {
        String text = text(key, Boolean.toString(dflt)).trim();
        if (!text.equalsIgnoreCase("true") && !text.equalsIgnoreCase("false")) {
            return fail(error(key, key + " must be true or false, was \"" + text + "\""), dflt);
        }
        return Boolean.parseBoolean(text);
    }

    /** An integer from {@code min} to {@code max}, {@code dflt} when not set. */
    public int integer(String key, int dflt, int min, int max) {
        long n = longValue(key, dflt, min, max);
        return (int) n;
    }

    /** A long from {@code min} to {@code max}, {@code dflt} when not set. */
    public long longValue(String key, long dflt, long min, long max) {
        String v = values.get(key);
        if (v == null) {
            return dflt;
        }
        long n;
        try {
            n = Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            return fail(error(key, key + " must be an integer, was \"" + v + "\""), dflt);
        }
        if (n < min || n > max) {
            return fail(error(key, key + " must be between " + min + " and " + max + ", was " + n), dflt);
        }
        return n;
    }

    /** One of {@code allowed} (as written, any case), {@code dflt} when not set. */
    public String oneOf(String key, String dflt, List<String> allowed) {
        String v = text(key, dflt).trim();
        for (String a : allowed) {
            if (a.equalsIgnoreCase(v)) {
                return a;
            }
        }
        return fail(error(key, key + " must be one of " + String.join(", ", allowed.stream()
                .map(a -> "\"" + a + "\"").toList()) + ", was \"" + v + "\""), dflt);
    }

    /**
     * {@code url} (the value of setting {@code key}) as a URI with a host and one of {@code schemes};
     * otherwise an error saying {@code why} ({@code "needs ws://host:port"}), after {@code context}
     * ({@code " for mode forward-ws"}, or empty).
     */
    public URI url(String key, String url, Set<String> schemes, String why, String context) {
        try {
            URI u = new URI(url);
            if (u.getHost() == null || u.getScheme() == null || !schemes.contains(u.getScheme())) {
                throw new URISyntaxException(url, why);
            }
            return u;
        } catch (URISyntaxException e) {
            throw error(key, key + " is not a usable URL" + context + ": " + e.getMessage());
        }
    }

    /**
     * An error about setting {@code key} of this section, naming where its value comes from: {@code what}
     * starts with the key ({@code "token is empty"}).
     */
    public ConfigException error(String key, String what) {
        return new ConfigException(where(key) + ": " + name + "." + what);
    }

    /** An error about the section as a whole (two settings that do not go together): {@code what} as it is. */
    public ConfigException error(String what) {
        return new ConfigException(source + ": " + what);
    }

    @Override
    public String toString() {
        return "[" + name + "] from " + source + ": " + values.keySet();
    }
}
