package dev.pulsebus.onebot;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulsebus.event.ChannelMessage;
import dev.pulsebus.event.ChatRef;
import dev.pulsebus.event.Event;
import dev.pulsebus.event.GroupMessage;
import dev.pulsebus.event.Message;
import dev.pulsebus.event.MetaEvent;
import dev.pulsebus.event.NoticeEvent;
import dev.pulsebus.event.OneBotJson;
import dev.pulsebus.event.PrivateMessage;
import dev.pulsebus.event.RequestEvent;
import dev.pulsebus.event.Self;
import dev.pulsebus.internal.Json;
import dev.pulsebus.pipeline.OutboundMessage;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * OneBot v12: events already have the records' shape ({@code id}, {@code type}, {@code detail_type},
 * {@code sub_type}, {@code self}) and segments ({@link OneBotJson}). The bot's {@code self.platform} (the
 * chat platform, {@code qq}) is kept as the field {@code platform} of {@code extra} or {@code fields}, as are
 * {@code alt_message} and extension fields ({@code qq.nickname}); the records' platform is {@code onebot12}.
 */
final class V12Protocol extends Protocol {

    private static final Set<String> MESSAGE_KEYS = Set.of("id", "time", "type", "detail_type", "sub_type",
            "self", "message_id", "message", "user_id", "group_id", "guild_id", "channel_id");
    private static final Set<String> COMMON_KEYS = Set.of("id", "time", "type", "detail_type", "sub_type", "self");

    V12Protocol() {
        super(12);
    }

    @Override
    @Nullable Object decode(ByteBuf frame, String selfHint, OneBotMetrics metrics) {
        JsonNode node = tree(frame);
        if (node == null) {
            return unreadable(frame);
        }
        if (unreadable(frame) == NOT_UTF8) { // Jackson takes overlong forms and surrogates
            return NOT_UTF8;
        }
        return !node.has("type") && node.has("retcode") ? node : event(node, selfHint, metrics);
    }

    private static @Nullable String botPlatform(JsonNode frame) {
        JsonNode p = frame.path("self").get("platform");
        return p == null || !p.isTextual() ? null : p.textValue();
    }

    private @Nullable Event event(JsonNode f, String selfHint, OneBotMetrics metrics) {
        String type = f.path("type").asText("");
        String id = JsonValues.id(f, "id");
        if (id.isEmpty()) {
            metrics.bad(OneBotMetrics.Bad.INVALID, "a " + type + " event without id");
            return null;
        }
        String self = JsonValues.id(f.path("self"), "user_id");
        if (self.isEmpty()) {
            self = selfHint; // meta events name no bot
        }
        if (self.length() > Event.MAX_ID_LENGTH) {
            metrics.bad(OneBotMetrics.Bad.INVALID, "a " + type + " event: self.user_id is " + self.length()
                    + " characters long, more than " + Event.MAX_ID_LENGTH);
            return null;
        }
        Self bot = new Self(platform, self);
        double seconds = f.path("time").asDouble(0);
        long whole = (long) Math.floor(seconds);
        // a double holds microseconds of a present-day time exactly enough; nanoseconds it does not
        Instant time = Instant.ofEpochSecond(whole, Math.round((seconds - whole) * 1e6) * 1000);
        String detail = f.path("detail_type").asText("");
        String sub = f.path("sub_type").asText("");
        JsonValues values = new JsonValues();
        String botPlatform = botPlatform(f);
        Event event;
        try {
            if (detail.isEmpty()) {
                throw new IllegalArgumentException("no detail_type");
            }
            event = switch (type) {
                case "message" -> message(f, id, bot, time, detail, sub, values, botPlatform, metrics);
                case "notice" -> new NoticeEvent(id, time, bot, detail, sub, fields(f, COMMON_KEYS, values, botPlatform));
                case "request" -> new RequestEvent(id, time, bot, detail, sub, fields(f, COMMON_KEYS, values, botPlatform));
                case "meta" -> new MetaEvent(id, time, bot, detail, sub, fields(f, COMMON_KEYS, values, botPlatform));
                default -> {
                    metrics.bad(OneBotMetrics.Bad.UNKNOWN_TYPE, "type \"" + type + "\"");
                    yield null;
                }
            };
        } catch (IllegalArgumentException | NullPointerException e) {
            metrics.bad(OneBotMetrics.Bad.INVALID, "a " + type + " event: " + e.getMessage());
            return null;
        }
        return counted(event, values, metrics);
    }

    private static Map<String, Object> fields(JsonNode f, Set<String> skip, JsonValues values,
                                              @Nullable String botPlatform) {
        Map<String, Object> fields = values.fields(f, "", skip);
        if (botPlatform != null) {
            fields.put("platform", botPlatform);
        }
        return fields;
    }

    private @Nullable Event message(JsonNode f, String id, Self bot, Instant time, String detail, String sub,
                                    JsonValues values, @Nullable String botPlatform, OneBotMetrics metrics) {
        String messageId = required(f, "message_id");
        String user = required(f, "user_id");
        JsonNode body = f.get("message");
        if (body == null || body.isNull()) {
            throw new IllegalArgumentException("no message");
        }
        // nulls inside segments left out (and counted) before the segments are read
        Message message = OneBotJson.read(Json.MAPPER.valueToTree(values.value(body, "message")));
        Map<String, Object> extra = fields(f, MESSAGE_KEYS, values, botPlatform);
        return switch (detail) {
            case ChatRef.PRIVATE -> new PrivateMessage(id, time, bot, sub, messageId, message, user, null, extra);
            case ChatRef.GROUP -> new GroupMessage(id, time, bot, sub, messageId, message, user,
                    required(f, "group_id"), null, extra);
            case ChatRef.CHANNEL -> new ChannelMessage(id, time, bot, sub, messageId, message, user,
                    required(f, "guild_id"), required(f, "channel_id"), null, extra);
            default -> {
                metrics.bad(OneBotMetrics.Bad.UNKNOWN_TYPE, "message detail_type \"" + detail + "\"");
                yield null;
            }
        };
    }

    @Override
    Action send(OutboundMessage m) {
        ObjectNode params = JsonNodeFactory.instance.objectNode();
        ChatRef chat = m.chat();
        params.put("detail_type", chat.detailType());
        switch (chat.detailType()) {
            case ChatRef.PRIVATE -> params.put("user_id", chat.id());
            case ChatRef.GROUP -> params.put("group_id", chat.id());
            default -> {
                int slash = chat.id().indexOf('/');
                params.put("guild_id", chat.id().substring(0, Math.max(0, slash)));
                params.put("channel_id", chat.id().substring(slash + 1));
            }
        }
        ArrayNode segments = JsonNodeFactory.instance.arrayNode();
        if (m.replyTo() != null) {
            segments.addObject().put("type", "reply").putObject("data").put("message_id", m.replyTo());
        }
        segments.addAll(OneBotJson.tree(m.message()));
        params.set("message", segments);
        return Action.of("send_message", params);
    }

    @Override
    void writeSelf(JsonGenerator g, String selfId, @Nullable String botPlatform) throws IOException {
        if (botPlatform != null && !selfId.isEmpty()) {
            g.writeObjectFieldStart("self");
            g.writeStringField("platform", botPlatform);
            g.writeStringField("user_id", selfId);
            g.writeEndObject();
        }
    }

    @Override
    void putId(ObjectNode params, String key, String id) {
        params.put(key, id);
    }
}
