package dev.pulsebus.event;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulsebus.internal.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Messages in OneBot 12's wire form, an array of {@code {"type": ..., "data": {...}}} segments: what
 * adapters exchange with platforms and what transcripts store.
 */
public final class OneBotJson {

    private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() { };

    private OneBotJson() {
    }

    public static String write(Message message) {
        return tree(message).toString();
    }

    /** The message as {@link #write} writes it, as a JSON tree (to put into a larger one without parsing it again). */
    public static ArrayNode tree(Message message) {
        ArrayNode array = Json.MAPPER.createArrayNode();
        for (Segment s : message.segments()) {
            ObjectNode seg = array.addObject();
            seg.put("type", s.type());
            ObjectNode data = seg.putObject("data");
            switch (s) {
                case Segment.Text t -> data.put("text", t.text());
                case Segment.Mention m -> data.put("user_id", m.userId());
                case Segment.MentionAll a -> { }
                case Segment.Image i -> data.put("file_id", i.fileId());
                case Segment.Reply r -> {
                    data.put("message_id", r.messageId());
                    if (r.userId() != null) {
                        data.put("user_id", r.userId());
                    }
                }
                case Segment.Other o -> data.setAll((ObjectNode) Json.MAPPER.valueToTree(o.data()));
            }
        }
        return array;
    }

    /**
     * Reads a message; a plain JSON string is read as one text segment, as OneBot allows.
     *
     * @throws IllegalArgumentException for JSON that is not a message, saying what is wrong
     */
    public static Message read(String json) {
        JsonNode root;
        try {
            root = Json.MAPPER.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("message is not valid JSON: " + e.getOriginalMessage(), e);
        }
        return read(root);
    }

    public static Message read(JsonNode root) {
        if (root != null && root.isTextual()) {
            return Message.text(root.asText());
        }
        if (root == null || !root.isArray()) {
            throw new IllegalArgumentException("message must be a JSON array of segments or a string");
        }
        List<Segment> segments = new ArrayList<>(root.size());
        for (JsonNode seg : root) {
            String type = seg.path("type").asText("");
            JsonNode data = seg.path("data");
            segments.add(switch (type) {
                case "text" -> new Segment.Text(required(data, "text", type));
                case "mention" -> new Segment.Mention(required(data, "user_id", type));
                case "mention_all" -> new Segment.MentionAll();
                case "image" -> new Segment.Image(required(data, "file_id", type));
                case "reply" -> new Segment.Reply(required(data, "message_id", type),
                        data.hasNonNull("user_id") ? data.get("user_id").asText() : null);
                case "" -> throw new IllegalArgumentException("a message segment has no type");
                default -> new Segment.Other(type, otherData(data, type));
            });
        }
        return new Message(segments);
    }

    /** An unknown segment's data as a map, which holds no null (a null deeper down is kept). */
    private static Map<String, Object> otherData(JsonNode data, String type) {
        if (!data.isObject()) {
            return Map.of();
        }
        for (Map.Entry<String, JsonNode> field : data.properties()) {
            if (field.getValue().isNull()) {
                throw new IllegalArgumentException("a " + type + " segment's data." + field.getKey() + " is null");
            }
        }
        return Json.MAPPER.convertValue(data, MAP);
    }

    private static String required(JsonNode data, String field, String type) {
        JsonNode v = data.get(field);
        if (v == null || v.isNull()) {
            throw new IllegalArgumentException("a " + type + " segment needs data." + field);
        }
        return v.asText();
    }
}
