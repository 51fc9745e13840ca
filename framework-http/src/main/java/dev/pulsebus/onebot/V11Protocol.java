package dev.pulsebus.onebot;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulsebus.event.ChatRef;
import dev.pulsebus.event.Event;
import dev.pulsebus.event.GroupMessage;
import dev.pulsebus.event.Message;
import dev.pulsebus.event.MetaEvent;
import dev.pulsebus.event.NoticeEvent;
import dev.pulsebus.event.PrivateMessage;
import dev.pulsebus.event.RequestEvent;
import dev.pulsebus.event.Self;
import dev.pulsebus.pipeline.OutboundMessage;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * OneBot v11: {@code post_type} {@code message} (private, group), {@code notice}, {@code request} and
 * {@code meta_event} onto the records. v11 events have no id; one is made from the bot and the
 * {@code message_id} (messages), the {@code flag} (requests) or a digest of the frame (notices, meta
 * events), so a retransmitted frame gets the same id and the pipeline drops it. The {@code notice_type},
 * {@code request_type} or {@code meta_event_type} is the record's {@code detailType}; every field the
 * record has no component for is kept in its {@code fields} or {@code extra}, under the v11 name.
 */
final class V11Protocol extends Protocol {

    private static final Set<String> MESSAGE_KEYS = Set.of("time", "self_id", "post_type", "message_type",
            "sub_type", "message_id", "user_id", "group_id", "message");
    private static final Set<String> COMMON_KEYS = Set.of("time", "self_id", "post_type", "sub_type",
            "notice_type", "request_type", "meta_event_type");

    V11Protocol() {
        super(11);
    }

    @Override
    boolean isResponse(JsonNode frame) {
        return !frame.has("post_type") && (frame.has("retcode") || frame.has("status"));
    }

    @Override
    @Nullable Event event(JsonNode f, String selfHint, OneBotMetrics metrics) {
        String postType = f.path("post_type").asText("");
        String self = JsonValues.id(f, "self_id");
        if (self.isEmpty()) {
            self = selfHint;
        }
        if (self.isEmpty()) {
            metrics.bad(OneBotMetrics.Bad.INVALID, "a " + postType + " event without self_id");
            return null;
        }
        Self bot = new Self(platform, self);
        Instant time = Instant.ofEpochSecond(f.path("time").asLong(0));
        String sub = f.path("sub_type").asText("");
        JsonValues values = new JsonValues();
        Event event;
        try {
            event = switch (postType) {
                case "message" -> message(f, bot, time, sub, values, metrics);
                case "notice" -> new NoticeEvent(self + ":n:" + digest(f.toString()), time, bot,
                        required(f, "notice_type"), sub, values.fields(f, "", COMMON_KEYS));
                case "request" -> {
                    String flag = JsonValues.id(f, "flag");
                    yield new RequestEvent(self + ":r:" + (flag.isEmpty() ? digest(f.toString()) : flag), time, bot,
                            required(f, "request_type"), sub, values.fields(f, "", COMMON_KEYS));
                }
                case "meta_event" -> new MetaEvent(self + ":e:" + digest(f.toString()), time, bot,
                        required(f, "meta_event_type"), sub, values.fields(f, "", COMMON_KEYS));
                default -> {
                    metrics.bad(OneBotMetrics.Bad.UNKNOWN_TYPE, "post_type \"" + postType + "\"");
                    yield null;
                }
            };
        } catch (IllegalArgumentException | NullPointerException e) {
            metrics.bad(OneBotMetrics.Bad.INVALID, "a " + postType + " event: " + e.getMessage());
            return null;
        }
        return counted(event, values, metrics);
    }

    private @Nullable Event message(JsonNode f, Self bot, Instant time, String sub, JsonValues values,
                                    OneBotMetrics metrics) {
        String type = f.path("message_type").asText("");
        String messageId = required(f, "message_id");
        String user = required(f, "user_id");
        JsonNode body = f.get("message");
        if (body == null || body.isNull()) {
            throw new IllegalArgumentException("no message");
        }
        Message message = V11Segments.read(body, values);
        String id = bot.userId() + ":m:" + messageId;
        return switch (type) {
            case "private" -> new PrivateMessage(id, time, bot, sub, messageId, message, user, null,
                    values.fields(f, "", MESSAGE_KEYS));
            case "group" -> new GroupMessage(id, time, bot, sub, messageId, message, user, required(f, "group_id"),
                    null, values.fields(f, "", MESSAGE_KEYS));
            default -> {
                metrics.bad(OneBotMetrics.Bad.UNKNOWN_TYPE, "message_type \"" + type + "\"");
                yield null;
            }
        };
    }

    @Override
    Action send(OutboundMessage m) {
        ObjectNode params = JsonNodeFactory.instance.objectNode();
        ChatRef chat = m.chat();
        String action;
        switch (chat.detailType()) {
            case ChatRef.PRIVATE -> {
                action = "send_private_msg";
                putId(params, "user_id", chat.id());
            }
            case ChatRef.GROUP -> {
                action = "send_group_msg";
                putId(params, "group_id", chat.id());
            }
            default -> throw new IllegalArgumentException("OneBot v11 has no channels: cannot send to " + chat);
        }
        params.set("message", V11Segments.write(m.message(), m.replyTo()));
        return new Action(action, params);
    }

    @Override
    void putId(ObjectNode params, String key, String id) {
        long n = digits(id);
        if (n >= 0) {
            params.put(key, n);
        } else {
            params.put(key, id);
        }
    }

    /** {@code id} as a number when it is 1-18 digits, else -1. */
    private static long digits(String id) {
        if (id.isEmpty() || id.length() > 18) {
            return -1;
        }
        long n = 0;
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            n = n * 10 + (c - '0');
        }
        return n;
    }


}
