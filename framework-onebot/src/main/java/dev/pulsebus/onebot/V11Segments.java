package dev.pulsebus.onebot;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import dev.pulsebus.event.Message;
import dev.pulsebus.event.Segment;
import dev.pulsebus.internal.Json;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

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
            segments.add(switch (type) {
                case "text", "at", "reply", "image" -> known(type, main(data, type), JsonValues.id(data, "url"));
                default -> segment(type, data.isObject() ? values.fields(data, "message." + type, null) : Map.of());
            });
        }
        return new Message(segments);
    }

    /** The data field that holds a {@code text}, {@code at}, {@code reply} or {@code image} segment's value. */
    static String mainKey(String type) {
        return switch (type) {
            case "text" -> "text";
            case "at" -> "qq";
            case "reply" -> "id";
            default -> "file";
        };
    }

    private static @Nullable String main(JsonNode data, String type) {
        JsonNode v = data.get(mainKey(type));
        return v == null || v.isNull() || v.isContainerNode() ? null : v.asText();
    }

    /**
     * A {@code text}, {@code at}, {@code reply} or {@code image} segment from its main value ({@code text},
     * {@code qq}, {@code id}, {@code file}) and, an image, its {@code url} (may be null or empty).
     *
     * @throws IllegalArgumentException when the main value is missing
     */
    static Segment known(String type, @Nullable String main, @Nullable String url) {
        if (type.equals("image") && url != null && !url.isEmpty()) {
            return new Segment.Image(url);
        }
        if (main == null || (main.isEmpty() && !type.equals("text"))) {
            throw new IllegalArgumentException("a " + type + " segment needs data." + mainKey(type));
        }
        return switch (type) {
            case "text" -> new Segment.Text(main);
            case "at" -> main.equals("all") ? new Segment.MentionAll() : new Segment.Mention(main);
            case "reply" -> new Segment.Reply(main, null);
            default -> new Segment.Image(main);
        };
    }

    /** Any other segment, kept with its type and data (no nulls in it). */
    static Segment segment(String type, Map<String, Object> data) {
        return switch (type) {
            case "text", "at", "reply", "image" -> known(type, str(data.get(mainKey(type))), str(data.get("url")));
            case "" -> throw new IllegalArgumentException("a message segment has no type");
            default -> new Segment.Other(type, data);
        };
    }

    private static @Nullable String str(@Nullable Object v) {
        return v == null || v instanceof Map || v instanceof List ? null : v.toString();
    }

    private static void write(JsonGenerator g, String type, String key, String value) throws IOException {
        g.writeStartObject();
        g.writeStringField("type", type);
        g.writeObjectFieldStart("data");
        g.writeStringField(key, value);
        g.writeEndObject();
        g.writeEndObject();
    }

    /** Writes {@code message} in the array form, after a reply segment to {@code replyTo} when that is not null. */
    static void write(JsonGenerator g, Message message, @Nullable String replyTo) throws IOException {
        g.writeStartArray();
        if (replyTo != null) {
            write(g, "reply", "id", replyTo);
        }
        for (Segment s : message.segments()) {
            switch (s) {
                case Segment.Text t -> write(g, "text", "text", t.text());
                case Segment.Mention m -> write(g, "at", "qq", m.userId());
                case Segment.MentionAll a -> write(g, "at", "qq", "all");
                case Segment.Image i -> write(g, "image", "file", i.fileId());
                case Segment.Reply r -> write(g, "reply", "id", r.messageId());
                case Segment.Other o -> {
                    g.writeStartObject();
                    g.writeStringField("type", o.type());
                    g.writeFieldName("data");
                    Json.MAPPER.writeValue(g, o.data());
                    g.writeEndObject();
                }
            }
        }
        g.writeEndArray();
    }
}
