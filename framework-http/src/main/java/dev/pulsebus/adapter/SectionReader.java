package dev.pulsebus.adapter;

import dev.pulsebus.config.ConfigException;
import java.net.URI;
import java.net.URISyntaxException;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.pulsebus.internal.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One {@code [adapters.<name>]} section read with the checks every adapter's settings make: no unknown key,
 * {@code enabled} a boolean, integers in their range, URLs with a host and one of the schemes allowed. Values
 * are the text they are (an environment override stays text); every error is a {@link ConfigException}
 * naming the source and the setting ({@code adapters.telegram.mode}).
 */
public final class SectionReader {

    private final String section;
    private final Map<String, String> keys;
    private final String source;

    /**
     * The settings {@code keys} (key to text) of {@code section}, read from {@code source}.
     *
     * @throws ConfigException naming a key that is not in {@code known}, and the keys that are
     */
    public SectionReader(String section, Map<String, String> keys, Set<String> known, String source) {
        this.section = section;
        this.keys = Map.copyOf(keys);
        this.source = source;
        for (String key : keys.keySet()) {
            if (!known.contains(key)) {
                throw new ConfigException(source + ": unknown setting " + section + "." + key + "; known in ["
                        + section + "]: " + String.join(", ", known.stream().sorted().toList()));
            }
        }
    }

    /** The setting's text, or {@code dflt} when it is not set. */
    public String text(String key, String dflt) {
        return keys.getOrDefault(key, dflt);
    }

    /** A list of texts (see {@link #strings}); empty when not set. */
    public List<String> list(String key) {
        try {
            return strings(text(key, ""));
        } catch (IllegalArgumentException e) {
            throw error(key + " " + e.getMessage());
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
            throw error(key + " must be true or false, was \"" + text + "\"");
        }
        return Boolean.parseBoolean(text);
    }

    /** An integer from {@code min} to {@code max}, {@code dflt} when not set. */
    public int integer(String key, int dflt, int min, int max) {
        String v = keys.get(key);
        if (v == null) {
            return dflt;
        }
        long n;
        try {
            n = Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw error(key + " must be an integer, was \"" + v + "\"");
        }
        if (n < min || n > max) {
            throw error(key + " must be between " + min + " and " + max + ", was " + n);
        }
        return (int) n;
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
            throw error(key + " is not a usable URL" + context + ": " + e.getMessage());
        }
    }

    /** An error about this section's setting: {@code what} starts with the key ({@code "token is empty"}). */
    public ConfigException error(String what) {
        return new ConfigException(source + ": " + section + "." + what);
    }
}
