package dev.pulsebus.onebot;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * JSON values as the plain Java values the event records keep (maps, lists, strings, longs, doubles,
 * booleans), with every JSON {@code null} left out and counted in {@link #nulls}: the records hold no
 * null. One per decoded frame; not thread-safe.
 */
final class JsonValues {

    /** The nulls left out so far (not those a spec allows, see {@link #nullable}). */
    int nulls;
    /** The first path where a null was left out, for the warning. */
    String firstNull = "";

    /** A field whose null the spec allows (v11's {@code anonymous} of a group message that is not anonymous). */
    static boolean nullable(String field) {
        return field.equals("anonymous");
    }

    Object value(JsonNode n, String path) {
        if (n.isTextual()) {
            return n.textValue();
        }
        if (n.isIntegralNumber()) {
            return n.canConvertToLong() ? (Object) n.longValue() : n.bigIntegerValue();
        }
        if (n.isNumber()) {
            return n.doubleValue();
        }
        if (n.isBoolean()) {
            return n.booleanValue();
        }
        if (n.isArray()) {
            List<Object> list = new ArrayList<>(n.size());
            for (int i = 0; i < n.size(); i++) {
                JsonNode e = n.get(i);
                if (e.isNull()) {
                    nullAt(path + "[" + i + "]");
                } else {
                    list.add(value(e, path));
                }
            }
            return Collections.unmodifiableList(list);
        }
        if (n.isObject()) {
            return Collections.unmodifiableMap(fields(n, path, null));
        }
        return n.asText();
    }

    /** The fields of object {@code n} but those in {@code skip} (may be null), nulls left out. */
    Map<String, Object> fields(JsonNode n, String path, java.util.@org.jspecify.annotations.Nullable Set<String> skip) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> f : n.properties()) {
            String key = f.getKey();
            if (skip != null && skip.contains(key)) {
                continue;
            }
            JsonNode v = f.getValue();
            if (v.isNull()) {
                if (!nullable(key)) {
                    nullAt(path.isEmpty() ? key : path + "." + key);
                }
            } else {
                out.put(key, value(v, path.isEmpty() ? key : path + "." + key));
            }
        }
        return out;
    }

    void nullAt(String path) {
        if (nulls++ == 0) {
            firstNull = path;
        }
    }

    /** A field read as an id: a number or a string, as text; empty when absent or null. */
    static String id(JsonNode frame, String field) {
        JsonNode v = frame.get(field);
        return v == null || v.isNull() || v.isContainerNode() ? "" : v.asText();
    }
}
