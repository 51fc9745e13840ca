package dev.pulsebus.onebot;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulsebus.event.Message;
import dev.pulsebus.event.Segment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * OneBot v11 message segments and the records of {@link Segment}: {@code text} as text, {@code at} as a
 * mention ({@code qq=all} as mention-all), {@code image} as an image (its {@code url} when it has one, a
 * link the bot can fetch and send again as {@code file}, else its {@code file}), {@code reply} as a reply;
 * every other type ({@code face}, {@code record}, {@code video}, {@code forward}, {@code json}, {@code xml},
 * and types this list does not know) is kept as {@link Segment.Other} with its type and data, never dropped.
 * A message may come in the array form or the CQ-code string form ({@link CqCode}). Stateless.
 */
final class V11Segments {

    private V11Segments() {
    }

    /**
     * Reads a v11 message, array or string.
     *
     * @throws IllegalArgumentException when it is neither, or a segment lacks what its type needs
     */
    static Message read(JsonNode message, JsonValues values) {
        JsonNode array = message.isTextual() ? CqCode.parse(message.textValue()) : message;
        if (!array.isArray()) {
            throw new IllegalArgumentException("message is neither a segment array nor a string");
        }
        List<Segment> segments = new ArrayList<>(array.size());
        for (JsonNode seg : array) {
            String type = seg.path("type").asText("");
            JsonNode data = seg.path("data");
            switch (type) {
                case "text" -> segments.add(new Segment.Text(required(data, "text", type)));
                case "at" -> {
                    String qq = required(data, "qq", type);
                    segments.add(qq.equals("all") ? new Segment.MentionAll() : new Segment.Mention(qq));
                }
                case "image" -> {
                    String url = JsonValues.id(data, "url");
                    segments.add(new Segment.Image(url.isEmpty() ? required(data, "file", type) : url));
                }
                case "reply" -> segments.add(new Segment.Reply(required(data, "id", type), null));
                case "" -> throw new IllegalArgumentException("a message segment has no type");
                default -> segments.add(new Segment.Other(type, data.isObject()
                        ? values.fields(data, "message." + type, null) : Map.of()));
            }
        }
        return new Message(segments);
    }

    private static String required(JsonNode data, String field, String type) {
        String v = JsonValues.id(data, field);
        if (v.isEmpty() && !(field.equals("text") && data.path(field).isTextual())) {
            throw new IllegalArgumentException("a " + type + " segment needs data." + field);
        }
        return v;
    }

    private static void add(ArrayNode array, String type, String key, String value) {
        ObjectNode seg = array.addObject();
        seg.put("type", type);
        seg.putObject("data").put(key, value);
    }

    /** {@code message} in the array form, after a reply segment to {@code replyTo} when that is not null. */
    static ArrayNode write(Message message, @org.jspecify.annotations.Nullable String replyTo) {
        ArrayNode array = JsonNodeFactory.instance.arrayNode(message.segments().size() + 1);
        if (replyTo != null) {
            add(array, "reply", "id", replyTo);
        }
        for (Segment s : message.segments()) {
            switch (s) {
                case Segment.Text t -> add(array, "text", "text", t.text());
                case Segment.Mention m -> add(array, "at", "qq", m.userId());
                case Segment.MentionAll a -> add(array, "at", "qq", "all");
                case Segment.Image i -> add(array, "image", "file", i.fileId());
                case Segment.Reply r -> add(array, "reply", "id", r.messageId());
                case Segment.Other o -> {
                    ObjectNode seg = array.addObject();
                    seg.put("type", o.type());
                    seg.putObject("data").setAll((ObjectNode) dev.pulsebus.internal.Json.MAPPER.valueToTree(o.data()));
                }
            }
        }
        return array;
    }
}
