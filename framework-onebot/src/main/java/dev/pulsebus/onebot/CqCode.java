package dev.pulsebus.onebot;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;

/**
 * OneBot v11's string form of a message: text with CQ codes ({@code [CQ:face,id=178]}) between, escaped as
 * the spec says (message/string.md): an ampersand and square brackets as the HTML entities amp, #91 and
 * #93 in text, and a comma as #44 too in a code's values. Read into the array form ({@code [{"type", "data"}]}, every value a string), and written from
 * it. A {@code [CQ:} without its {@code ]} is text. Stateless.
 */
final class CqCode {

    private CqCode() {
    }

    /** {@code text} in the array form. */
    static ArrayNode parse(String text) {
        ArrayNode out = JsonNodeFactory.instance.arrayNode();
        int i = 0;
        int n = text.length();
        while (i < n) {
            int open = text.indexOf("[CQ:", i);
            int close = open < 0 ? -1 : text.indexOf(']', open);
            if (open < 0 || close < 0) {
                addText(out, text.substring(i));
                break;
            }
            if (open > i) {
                addText(out, text.substring(i, open));
            }
            String body = text.substring(open + 4, close);
            int comma = body.indexOf(',');
            ObjectNode seg = out.addObject();
            seg.put("type", comma < 0 ? body : body.substring(0, comma));
            ObjectNode data = seg.putObject("data");
            int at = comma < 0 ? body.length() : comma + 1;
            while (at < body.length()) {
                int next = body.indexOf(',', at);
                String part = body.substring(at, next < 0 ? body.length() : next);
                int eq = part.indexOf('=');
                if (eq > 0) {
                    data.put(part.substring(0, eq), unescape(part.substring(eq + 1)));
                } else if (!part.isEmpty()) {
                    data.put(part, "");
                }
                at = next < 0 ? body.length() : next + 1;
            }
            i = close + 1;
        }
        return out;
    }

    private static void addText(ArrayNode out, String raw) {
        if (!raw.isEmpty()) {
            out.addObject().put("type", "text").putObject("data").put("text", unescape(raw));
        }
    }

    /** The array form {@code segments} as one string. */
    static String format(JsonNode segments) {
        StringBuilder sb = new StringBuilder();
        for (JsonNode seg : segments) {
            String type = seg.path("type").asText("");
            JsonNode data = seg.path("data");
            if (type.equals("text")) {
                escape(sb, data.path("text").asText(""), false);
                continue;
            }
            sb.append("[CQ:").append(type);
            for (Map.Entry<String, JsonNode> field : data.properties()) {
                sb.append(',').append(field.getKey()).append('=');
                JsonNode v = field.getValue();
                escape(sb, v.isValueNode() ? v.asText() : v.toString(), true);
            }
            sb.append(']');
        }
        return sb.toString();
    }

    static String unescape(String s) {
        if (s.indexOf('&') < 0) {
            return s;
        }
        return s.replace("&#91;", "[").replace("&#93;", "]").replace("&#44;", ",").replace("&amp;", "&");
    }

    static void escape(StringBuilder sb, String s, boolean inCode) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> sb.append("&amp;");
                case '[' -> sb.append("&#91;");
                case ']' -> sb.append("&#93;");
                case ',' -> sb.append(inCode ? "&#44;" : ",");
                default -> sb.append(c);
            }
        }
    }
}
