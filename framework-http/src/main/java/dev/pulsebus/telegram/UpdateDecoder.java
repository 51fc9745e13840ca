package dev.pulsebus.telegram;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import dev.pulsebus.event.ChannelMessage;
import dev.pulsebus.event.Event;
import dev.pulsebus.event.GroupMessage;
import dev.pulsebus.event.Message;
import dev.pulsebus.event.NoticeEvent;
import dev.pulsebus.event.PrivateMessage;
import dev.pulsebus.event.ReplyChannel;
import dev.pulsebus.event.Segment;
import dev.pulsebus.event.Self;
import dev.pulsebus.internal.Json;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * One Bot API {@code Update} as a PulseBus event, id {@code tg:<bot id>:<update_id>} (so the pipeline drops
 * a webhook retry or a repeat):
 * <ul>
 * <li>{@code message}, {@code edited_message}, {@code channel_post}, {@code edited_channel_post}: a
 *     {@link PrivateMessage} (chat type {@code private}), {@link GroupMessage} ({@code group},
 *     {@code supergroup}) or {@link ChannelMessage} ({@code channel}, guild and channel both the chat id);
 *     edits have sub type {@code edited}. Segments: a {@code reply_to_message} first as a reply, then the
 *     text (or caption) cut at its entities: {@code mention} and {@code text_mention} as mentions (the
 *     bot's own {@code @username} as a mention of its id), {@code bot_command} as text with this bot's
 *     {@code @username} suffix stripped, a command for another bot as an {@code bot_command} segment (so
 *     it matches no command here); the largest {@code photo} as an image of its {@code file_id};
 *     {@code document}, {@code sticker}, {@code animation}, {@code audio}, {@code video},
 *     {@code video_note}, {@code voice} as segments of that type with their fields ({@code file_id}, ...).
 *     {@code extra} holds every field of the Telegram message as sent, and {@code update_type}.</li>
 * <li>{@code my_chat_member}, {@code chat_member}: notices, sub type the new member status.</li>
 * <li>{@code callback_query}: a notice with its fields ({@code data}, {@code from}, {@code message}).</li>
 * <li>anything else: a notice of that type, its fields as sent and {@code raw}, the update's JSON.</li>
 * </ul>
 * Stateless; an update without what its type needs throws {@link IllegalArgumentException} saying what.
 */
final class UpdateDecoder {

    static final String PLATFORM = "telegram";
    private static final TypeReference<LinkedHashMap<String, Object>> MAP = new TypeReference<>() { };
    private static final Set<String> MESSAGES = Set.of("message", "edited_message", "channel_post",
            "edited_channel_post");
    private static final List<String> MEDIA = List.of("document", "sticker", "animation", "audio", "video",
            "video_note", "voice");

    private UpdateDecoder() {
    }

    /** The update's type: its one field besides {@code update_id}; empty when it has none. */
    static String type(JsonNode update) {
        for (Map.Entry<String, JsonNode> f : update.properties()) {
            if (!f.getKey().equals("update_id")) {
                return f.getKey();
            }
        }
        return "";
    }

    /**
     * @param botId    the bot the update came to
     * @param username its {@code @username} without the {@code @} (from {@code getMe}), null while unknown
     * @param now      the time of an update that carries none ({@code callback_query})
     */
    static Event decode(JsonNode update, String botId, @Nullable String username, Instant now) {
        JsonNode idNode = update.get("update_id");
        if (idNode == null || !idNode.canConvertToLong()) {
            throw new IllegalArgumentException("an update without an integer update_id");
        }
        String type = type(update);
        if (type.isEmpty()) {
            throw new IllegalArgumentException("update " + idNode.asLong() + " has no content");
        }
        String id = "tg:" + botId + ":" + idNode.asLong();
        Self self = new Self(PLATFORM, botId);
        JsonNode body = update.get(type);
        if (MESSAGES.contains(type)) {
            return message(id, self, type, body, username);
        }
        if (!body.isObject()) {
            return new NoticeEvent(id, now, self, type, "", Map.of("raw", update.toString()));
        }
        Map<String, Object> fields = fields(body);
        Instant time = body.has("date") ? Instant.ofEpochSecond(body.get("date").asLong()) : now;
        return switch (type) {
            case "my_chat_member", "chat_member" -> new NoticeEvent(id, time, self, type,
                    body.path("new_chat_member").path("status").asText(""), fields);
            case "callback_query" -> new NoticeEvent(id, time, self, type, "", fields);
            default -> {
                fields.put("raw", update.toString());
                yield new NoticeEvent(id, time, self, type, "", fields);
            }
        };
    }

    private static Event message(String id, Self self, String type, JsonNode m, @Nullable String username) {
        JsonNode chat = m.path("chat");
        if (!m.path("message_id").canConvertToLong() || !chat.path("id").canConvertToLong()
                || !m.path("date").canConvertToLong()) {
            throw new IllegalArgumentException(type + " without message_id, chat.id or date");
        }
        String messageId = m.get("message_id").asText();
        String chatId = chat.get("id").asText();
        Instant time = Instant.ofEpochSecond(m.has("edit_date") ? m.get("edit_date").asLong() : m.get("date").asLong());
        String subType = type.startsWith("edited_") ? "edited" : "";
        String userId = m.path("from").path("id").canConvertToLong() ? m.path("from").get("id").asText()
                : m.path("sender_chat").path("id").canConvertToLong() ? m.path("sender_chat").get("id").asText()
                : chatId;
        Message message = new Message(segments(m, self.userId(), username));
        Map<String, Object> extra = fields(m);
        extra.put("update_type", type);
        return switch (chat.path("type").asText("")) {
            case "private" -> new PrivateMessage(id, time, self, subType, messageId, message, userId,
                    ReplyChannel.UNBOUND, extra);
            case "group", "supergroup" -> new GroupMessage(id, time, self, subType, messageId, message, userId, chatId,
                    ReplyChannel.UNBOUND, extra);
            case "channel" -> new ChannelMessage(id, time, self, subType, messageId, message, userId, chatId, chatId,
                    ReplyChannel.UNBOUND, extra);
            default -> throw new IllegalArgumentException(type + " in a chat of unknown type \""
                    + chat.path("type").asText("") + "\"");
        };
    }

    static List<Segment> segments(JsonNode m, String botId, @Nullable String username) {
        List<Segment> out = new ArrayList<>();
        JsonNode reply = m.get("reply_to_message");
        if (reply != null && reply.path("message_id").canConvertToLong()) {
            JsonNode from = reply.path("from").path("id");
            out.add(new Segment.Reply(reply.get("message_id").asText(), from.canConvertToLong() ? from.asText() : null));
        }
        JsonNode photo = m.get("photo");
        if (photo != null && photo.isArray() && !photo.isEmpty()) {
            JsonNode largest = photo.get(photo.size() - 1); // sizes come smallest first
            out.add(new Segment.Image(largest.path("file_id").asText("")));
        }
        for (String media : MEDIA) {
            JsonNode v = m.get(media);
            if (v != null && v.isObject()) {
                out.add(new Segment.Other(media, fields(v)));
            }
        }
        if (m.path("text").isTextual()) {
            text(out, m.get("text").textValue(), m.path("entities"), botId, username);
        } else if (m.path("caption").isTextual()) {
            text(out, m.get("caption").textValue(), m.path("caption_entities"), botId, username);
        }
        return out;
    }

    /** {@code text} cut at its mention and command entities (offsets in UTF-16 units, as Java's strings). */
    private static void text(List<Segment> out, String text, JsonNode entities, String botId,
                             @Nullable String username) {
        StringBuilder plain = new StringBuilder();
        int pos = 0;
        for (JsonNode e : entities) {
            String type = e.path("type").asText("");
            int off = e.path("offset").asInt(-1);
            int end = off + e.path("length").asInt(0);
            if (off < pos || end > text.length() || end <= off
                    || !(type.equals("mention") || type.equals("text_mention") || type.equals("bot_command"))) {
                continue; // formatting, links and nested or broken entities stay text
            }
            plain.append(text, pos, off);
            String part = text.substring(off, end);
            Segment s = switch (type) {
                case "mention" -> {
                    String name = part.substring(1);
                    yield new Segment.Mention(name.equalsIgnoreCase(username == null ? "" : username) ? botId : name);
                }
                case "text_mention" -> e.path("user").path("id").canConvertToLong()
                        ? new Segment.Mention(e.path("user").get("id").asText()) : null;
                default -> {
                    int at = part.indexOf('@');
                    if (at < 0 || username == null || part.substring(at + 1).equalsIgnoreCase(username)) {
                        plain.append(at < 0 ? part : part.substring(0, at));
                        yield null;
                    }
                    yield new Segment.Other("bot_command", Map.of("command", part, "bot", part.substring(at + 1)));
                }
            };
            if (s == null && !type.equals("bot_command")) {
                plain.append(part);
            }
            if (s != null) {
                flush(out, plain);
                out.add(s);
            }
            pos = end;
        }
        plain.append(text, pos, text.length());
        flush(out, plain);
    }

    private static void flush(List<Segment> out, StringBuilder plain) {
        if (!plain.isEmpty()) {
            out.add(new Segment.Text(plain.toString()));
            plain.setLength(0);
        }
    }

    /** An object's fields as maps, lists and values; a top-level JSON null is left out. */
    private static Map<String, Object> fields(JsonNode n) {
        LinkedHashMap<String, Object> map = Objects.requireNonNull(Json.MAPPER.convertValue(n, MAP));
        map.values().removeIf(Objects::isNull);
        return map;
    }
}
