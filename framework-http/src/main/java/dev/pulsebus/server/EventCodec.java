package dev.pulsebus.server;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulsebus.event.ChannelMessage;
import dev.pulsebus.event.Event;
import dev.pulsebus.event.GroupMessage;
import dev.pulsebus.event.MessageEvent;
import dev.pulsebus.event.MetaEvent;
import dev.pulsebus.event.NoticeEvent;
import dev.pulsebus.event.OneBotJson;
import dev.pulsebus.event.PrivateMessage;
import dev.pulsebus.event.ReplyChannel;
import dev.pulsebus.event.RequestEvent;
import dev.pulsebus.event.Self;
import dev.pulsebus.internal.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.Map;

/**
 * A platform event as bytes and back, for the cluster's broker: one JSON object with the record's components,
 * the message in OneBot 12's segment form ({@link OneBotJson}) and the platform fields ({@code extra},
 * {@code fields}) as JSON values. What comes back equals what went in, but for the reply channel (the receiving
 * pipeline binds its own): platform fields as the adapters' decoders make them (maps, lists, text, booleans,
 * whole numbers as {@code Long}, past a long {@code BigInteger}, others {@code Double}).
 */
final class EventCodec {

    /** Whole numbers as {@code Long}, as the decoders keep them (a handler casting to Long works on any instance). */
    private static final ObjectReader FIELDS = Json.MAPPER.readerFor(new TypeReference<Map<String, Object>>() { })
            .with(DeserializationFeature.USE_LONG_FOR_INTS);

    private EventCodec() {
    }

    static byte[] encode(Event event) {
        try {
            return Json.MAPPER.writeValueAsBytes(tree(event));
        } catch (IOException e) {
            throw new UncheckedIOException("event " + event.id() + " cannot be written as JSON", e);
        }
    }

    private static ObjectNode tree(Event event) throws IOException {
        ObjectNode o = Json.MAPPER.createObjectNode();
        o.put("type", event.type());
        o.put("detail_type", event.detailType());
        o.put("sub_type", event.subType());
        o.put("id", event.id());
        Instant time = event.time();
        o.put("time_s", time.getEpochSecond());
        o.put("time_ns", time.getNano());
        o.put("platform", event.self().platform());
        o.put("self_id", event.self().userId());
        Map<String, Object> fields;
        if (event instanceof MessageEvent m) {
            o.put("message_id", m.messageId());
            o.set("message", OneBotJson.tree(m.message()));
            o.put("user_id", m.userId());
            switch (m) {
                case GroupMessage g -> o.put("group_id", g.groupId());
                case ChannelMessage c -> o.put("guild_id", c.guildId()).put("channel_id", c.channelId());
                default -> { }
            }
            fields = m.extra();
        } else {
            fields = switch (event) {
                case NoticeEvent n -> n.fields();
                case RequestEvent r -> r.fields();
                case MetaEvent x -> x.fields();
                default -> throw new IllegalArgumentException("not a platform event: " + event.getClass().getName());
            };
        }
        o.set("fields", Json.MAPPER.valueToTree(fields));
        return o;
    }

    /** The event {@link #encode} wrote; throws {@link IllegalArgumentException} for anything else. */
    static Event decode(byte[] bytes) {
        JsonNode o;
        try {
            o = Json.MAPPER.readTree(bytes);
        } catch (IOException e) {
            throw new IllegalArgumentException("not an event: " + e.getMessage(), e);
        }
        String id = text(o, "id");
        Instant time = Instant.ofEpochSecond(o.path("time_s").asLong(), o.path("time_ns").asInt());
        Self self = new Self(text(o, "platform"), text(o, "self_id"));
        String detailType = text(o, "detail_type");
        String subType = o.path("sub_type").asText("");
        Map<String, Object> fields;
        try {
            fields = FIELDS.readValue(o.path("fields"));
        } catch (IOException e) {
            throw new IllegalArgumentException("an event whose fields are not a JSON object: " + e.getMessage(), e);
        }
        Map<String, Object> kept = fields == null ? Map.of() : fields;
        return switch (text(o, "type")) {
            case "message" -> {
                String messageId = text(o, "message_id");
                var message = OneBotJson.read(o.get("message"));
                String user = text(o, "user_id");
                yield switch (detailType) {
                    case "group" -> new GroupMessage(id, time, self, subType, messageId, message, user,
                            text(o, "group_id"), ReplyChannel.UNBOUND, kept);
                    case "private" -> new PrivateMessage(id, time, self, subType, messageId, message, user,
                            ReplyChannel.UNBOUND, kept);
                    case "channel" -> new ChannelMessage(id, time, self, subType, messageId, message, user,
                            text(o, "guild_id"), text(o, "channel_id"), ReplyChannel.UNBOUND, kept);
                    default -> throw new IllegalArgumentException("a message of unknown detail_type " + detailType);
                };
            }
            case "notice" -> new NoticeEvent(id, time, self, detailType, subType, kept);
            case "request" -> new RequestEvent(id, time, self, detailType, subType, kept);
            case "meta" -> new MetaEvent(id, time, self, detailType, subType, kept);
            default -> throw new IllegalArgumentException("an event of unknown type " + o.path("type"));
        };
    }

    private static String text(JsonNode o, String field) {
        JsonNode v = o.get(field);
        if (v == null || !v.isTextual()) {
            throw new IllegalArgumentException("an event without " + field);
        }
        return v.asText();
    }
}
