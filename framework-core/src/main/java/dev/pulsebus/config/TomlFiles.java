package dev.pulsebus.config;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.toml.TomlFactory;
import com.fasterxml.jackson.dataformat.toml.TomlMapper;
import dev.pulsebus.internal.JsonStreaming;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * TOML files as flat maps of dotted keys: reading one (numbers as long or double, arrays as their JSON
 * text), writing one atomically (a temporary file renamed over the old one), and the values a file can
 * hold.
 */
final class TomlFiles {

    /** Jackson's TOML mapper, made on first write: reading needs only the parser. */
    private static final class Toml {
        static final TomlMapper MAPPER = new TomlMapper();
    }

    /**
     * Jackson's TOML parser, made on first read. It builds a node tree of the file and hands it out as
     * tokens; reading through it rather than the mapper keeps Jackson's object mapper (a few hundred
     * classes, about 150 ms of a server's start) off the path.
     */
    private static final class TomlReader {
        static final TomlFactory FACTORY = new TomlFactory();
    }

    private TomlFiles() {
    }

    /** The file code writes go to: {@code <name>.runtime.toml} beside the configuration file. */
    static Path runtimeFileOf(Path file) {
        String name = file.getFileName().toString();
        String base = name.endsWith(".toml") ? name.substring(0, name.length() - 5) : name;
        return file.resolveSibling(base + ".runtime.toml");
    }

    /** {@code path}'s values by dotted key; a missing file is empty when {@code optional}, else an error. */
    static Map<String, Object> read(Path path, boolean optional) {
        return read(path, optional, null);
    }

    /** {@link #read(Path, boolean)}, also putting into {@code lines} the line each key is written on. */
    static Map<String, Object> read(Path path, boolean optional, @Nullable Map<String, Integer> lines) {
        String text;
        try {
            text = Files.readString(path);
        } catch (NoSuchFileException e) {
            if (optional) {
                return Map.of();
            }
            throw new ConfigException("config file " + path + " does not exist");
        } catch (IOException e) {
            throw new ConfigException("cannot read config file " + path + ": " + e.getMessage(), e);
        }
        Map<String, Object> flat = new LinkedHashMap<>();
        try (JsonParser p = TomlReader.FACTORY.createParser(text)) {
            if (p.nextToken() == JsonToken.START_OBJECT) {
                flatten("", p, flat);
            }
        } catch (JsonProcessingException e) {
            var loc = e.getLocation();
            throw new ConfigException(path + (loc == null ? "" : ": line " + loc.getLineNr() + ", column "
                    + loc.getColumnNr()) + ": " + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw new ConfigException("cannot read config file " + path + ": " + e.getMessage(), e);
        }
        if (lines != null) {
            lines.putAll(keyLines(text));
        }
        return flat;
    }

    /**
     * The line each dotted key is written on ({@code [table]} headers and {@code key = value} lines; a key
     * inside an inline table or array is not listed: {@link ConfigSnapshot#origin} then names its parent).
     */
    static Map<String, Integer> keyLines(String text) {
        Map<String, Integer> out = new LinkedHashMap<>();
        String table = "";
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.startsWith("[")) {
                int end = line.indexOf(']');
                table = end < 0 ? table : bareKey(line.substring(line.startsWith("[[") ? 2 : 1, end));
                out.putIfAbsent(table, i + 1);
            } else if (!line.startsWith("#")) {
                int eq = line.indexOf('=');
                if (eq > 0) {
                    String key = bareKey(line.substring(0, eq));
                    out.putIfAbsent(table.isEmpty() ? key : table + "." + key, i + 1);
                }
            }
        }
        return out;
    }

    /** A written key as a dotted key: quotes and the spaces around dots removed. */
    private static String bareKey(String written) {
        return written.replace("\"", "").replace("'", "").replaceAll("\\s*\\.\\s*", ".").strip();
    }

    /** Writes {@code values} (sorted by key) under the comment {@code header}, atomically where the file system can. */
    static void write(Path path, String header, Map<String, Object> values) throws IOException {
        ObjectNode root = JsonNodeFactory.instance.objectNode();
        for (Map.Entry<String, Object> e : new TreeMap<>(values).entrySet()) {
            put(root, e.getKey(), e.getValue());
        }
        String text = header + (root.isEmpty() ? "" : Toml.MAPPER.writeValueAsString(root));
        Path tmp = path.resolveSibling(path.getFileName() + ".tmp");
        Files.writeString(tmp, text);
        try {
            Files.move(tmp, path, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(tmp, path, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /** A value as a file holds it: an integer as long, a floating-point number as double, text, a boolean. */
    static Object normalize(Object value, String key) {
        if (value instanceof Integer || value instanceof Long || value instanceof Short || value instanceof Byte) {
            return ((Number) value).longValue();
        }
        if (value instanceof Float || value instanceof Double) {
            return ((Number) value).doubleValue();
        }
        if (value instanceof Boolean || value instanceof String) {
            return value;
        }
        throw new ConfigException(key + ": a configuration value is text, a number or a boolean, not "
                + value.getClass().getSimpleName());
    }

    /** A key that is also a table of other keys ({@code a} and {@code a.b}) has no TOML form: refuse it. */
    static void checkNoConflict(String key, Map<String, Object> existing) {
        for (String k : existing.keySet()) {
            if (k.startsWith(key + ".") || key.startsWith(k + ".")) {
                throw new ConfigException(key + " conflicts with " + k + ": a key cannot also be a table of keys");
            }
        }
    }

    /** The table {@code p} is in, as dotted keys: numbers as long or double, arrays as their JSON text. */
    private static void flatten(String prefix, JsonParser p, Map<String, Object> out) throws IOException {
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String key = prefix.isEmpty() ? p.currentName() : prefix + "." + p.currentName();
            switch (p.nextToken()) {
                case START_OBJECT -> flatten(key, p, out);
                case VALUE_NUMBER_INT -> out.put(key, p.getNumberValue().longValue());
                case VALUE_NUMBER_FLOAT -> out.put(key, p.getDoubleValue());
                case VALUE_TRUE, VALUE_FALSE -> out.put(key, p.getBooleanValue());
                case START_ARRAY -> {
                    StringWriter json = new StringWriter();
                    try (JsonGenerator g = JsonStreaming.FACTORY.createGenerator(json)) {
                        g.copyCurrentStructure(p);
                    }
                    out.put(key, json.toString());
                }
                default -> out.put(key, p.getText());
            }
        }
    }

    @SuppressWarnings("StringSplitter") // keys are checked before: no empty parts to lose
    private static void put(ObjectNode root, String dotted, Object value) {
        String[] parts = dotted.split("\\.");
        ObjectNode node = root;
        for (int i = 0; i < parts.length - 1; i++) {
            node = node.withObject("/" + parts[i]);
        }
        String last = parts[parts.length - 1];
        if (value instanceof Long l) {
            node.put(last, l);
        } else if (value instanceof Double d) {
            node.put(last, d);
        } else if (value instanceof Boolean b) {
            node.put(last, b);
        } else {
            node.put(last, value.toString());
        }
    }
}
