package dev.pulsebus.command;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The router's answers in one language: templates with {@code {name}} placeholders, parsed once when
 * the language is first needed, then shared. Immutable.
 */
final class Messages {

    private final Map<String, Template> templates;

    Messages(Map<String, String> texts) {
        Map<String, Template> t = new HashMap<>();
        for (Map.Entry<String, String> e : texts.entrySet()) {
            t.put(e.getKey(), new Template(e.getValue()));
        }
        this.templates = Map.copyOf(t);
    }

    /** The message {@code key} with placeholders filled from {@code namesAndValues} (name, value, ...). */
    String format(String key, Object... namesAndValues) {
        Template t = templates.get(key);
        return t == null ? key : t.format(namesAndValues);
    }

    /** A wait as people read it, rounded up: "3 s", "5 min", "2 h", "1 d". */
    String duration(long millis) {
        long s = Math.max(1, (millis + 999) / 1000);
        if (s < 120) {
            return format("unit.s", "n", s);
        }
        long min = (s + 59) / 60;
        if (min < 120) {
            return format("unit.min", "n", min);
        }
        long h = (min + 59) / 60;
        if (h < 48) {
            return format("unit.h", "n", h);
        }
        return format("unit.d", "n", (h + 23) / 24);
    }

    /** A text split into literal parts and placeholder names; odd indexes are names. */
    private static final class Template {
        private final String[] parts;

        Template(String text) {
            List<String> p = new ArrayList<>();
            int i = 0;
            while (true) {
                int open = text.indexOf('{', i);
                int close = open < 0 ? -1 : text.indexOf('}', open);
                if (close < 0) {
                    p.add(text.substring(i));
                    break;
                }
                p.add(text.substring(i, open));
                p.add(text.substring(open + 1, close));
                i = close + 1;
            }
            this.parts = p.toArray(String[]::new);
        }

        String format(Object[] namesAndValues) {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < parts.length; i++) {
                if (i % 2 == 0) {
                    sb.append(parts[i]);
                    continue;
                }
                Object value = "{" + parts[i] + "}";
                for (int j = 0; j + 1 < namesAndValues.length; j += 2) {
                    if (parts[i].equals(namesAndValues[j])) {
                        value = namesAndValues[j + 1];
                        break;
                    }
                }
                sb.append(value);
            }
            return sb.toString();
        }
    }
}
