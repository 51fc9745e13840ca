package dev.pulsebus.telegram;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import dev.pulsebus.adapter.FieldReader;
import dev.pulsebus.adapter.JsonBytes;
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
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.time.Instant;
import java.util.Arrays;
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
 *     edits have sub type {@code edited}. Segments: a {@code reply_to_message} first as a reply; the largest
 *     {@code photo} as an image of its {@code file_id}; {@code document}, {@code sticker}, {@code animation},
 *     {@code audio}, {@code video}, {@code video_note}, {@code voice} as segments of that type with their
 *     fields ({@code file_id}, ...); then the text (or caption) cut at its entities: {@code mention} and
 *     {@code text_mention} as mentions (the bot's own {@code @username} as a mention of its id),
 *     {@code bot_command} as text with this bot's {@code @username} suffix stripped, a command for another
 *     bot as a {@code bot_command} segment (so it matches no command here). {@code extra} holds every field
 *     of the Telegram message as sent, and {@code update_type}.</li>
 * <li>{@code my_chat_member}, {@code chat_member}: notices, sub type the new member status.</li>
 * <li>{@code callback_query}: a notice with its fields ({@code data}, {@code from}, {@code message}).</li>
 * <li>anything else: a notice of that type, its fields as sent and {@code raw}, the update's JSON.</li>
 * </ul>
 *
 * <p>The update is read straight from its bytes ({@link JsonBytes}), without a tree: the message's fields
 * become the event's {@code extra} as they are read ({@link FieldReader}: maps copied out once at their exact
 * size, values Telegram enumerates as shared constants, strings and objects that repeat made once), and the
 * segments are made from them. One decoder per thread is reused update after update, and keeps the bot's
 * {@link Self} while updates are for the same bot. An update without what its type needs throws
 * {@link IllegalArgumentException} saying what, once the reader is past it (so the next update of a batch
 * can be read). Not thread-safe:
 * {@link #forThisThread()}.
 */
final class UpdateDecoder {

    static final String PLATFORM = "telegram";
    private static final TypeReference<LinkedHashMap<String, Object>> MAP = new TypeReference<>() { };
    private static final Set<String> MESSAGES = Set.of("message", "edited_message", "channel_post",
            "edited_channel_post");
    /** The types read as they stream; any other is read as a tree, for its raw JSON. */
    private static final Set<String> STREAMED = Set.of("message", "edited_message", "channel_post",
            "edited_channel_post", "my_chat_member", "chat_member", "callback_query");
    private static final List<String> MEDIA = List.of("document", "sticker", "animation", "audio", "video",
            "video_note", "voice");
    /** Values the Bot API enumerates (chat types, entity types, member statuses), kept as these constants. */
    private static final String[] KNOWN = {"private", "group", "supergroup", "channel", "mention", "text_mention",
        "bot_command", "url", "hashtag", "cashtag", "email", "bold", "italic", "underline", "code", "pre",
        "text_link", "spoiler", "member", "administrator", "creator", "left", "kicked", "restricted", "regular"};

    private static final ThreadLocal<UpdateDecoder> DECODERS = ThreadLocal.withInitial(UpdateDecoder::new);

    private final FieldReader fields = new FieldReader(KNOWN);
    private final JsonBytes json = reader();
    private final StringBuilder plain = new StringBuilder(64);
    private Segment[] segments = new Segment[8];
    private int count;
    private long updateId = -1;
    private String type = "";
    private @Nullable Self lastSelf;

    private UpdateDecoder() {
    }

    /**
     * A reader for documents holding updates, for one thread: the keys this decoder looks up come back as
     * these literals, found by identity.
     */
    static JsonBytes reader() {
        return new JsonBytes().names("update_id", "message", "edited_message", "channel_post",
                "edited_channel_post", "message_id", "from", "chat", "date", "edit_date", "sender_chat", "id", "type",
                "photo", "file_id", "document", "sticker", "animation", "audio", "video", "video_note", "voice",
                "text", "caption", "entities", "caption_entities", "offset", "length", "user", "reply_to_message",
                "new_chat_member", "status");
    }

    /** This thread's decoder. */
    static UpdateDecoder forThisThread() {
        return DECODERS.get();
    }

    /** The {@code update_id} of the update read last, -1 when it had none. */
    long updateId() {
        return updateId;
    }

    /** The type of the update read last (its content field: {@code message}, ...), empty when it had none. */
    String type() {
        return type;
    }

    /**
     * The update in {@code body} (a webhook's post).
     *
     * @throws IOException when it is not a JSON object
     * @throws IllegalArgumentException when it is no update (no {@code update_id}, ...)
     */
    Event decode(ByteBuf body, String botId, @Nullable String username, Instant now) throws IOException {
        return decode(json.reset(body), botId, username, now);
    }

    /** The update in {@code bytes[offset..offset+length)}; throws as {@link #decode(ByteBuf, String, String, Instant)}. */
    Event decode(byte[] bytes, int offset, int length, String botId, @Nullable String username, Instant now)
            throws IOException {
        return decode(json.reset(bytes, offset, length), botId, username, now);
    }

    private Event decode(JsonBytes j, String botId, @Nullable String username, Instant now) throws IOException {
        if (j.kind() != JsonBytes.OBJECT) {
            throw new IOException("not a JSON object");
        }
        Event event = read(j, botId, username, now);
        j.finish();
        return event;
    }

    /**
     * The update that is next in {@code j}; {@code j} is left after it, also when the update is refused
     * (IllegalArgumentException).
     *
     * @throws JsonBytes.MalformedException when the document is not JSON there
     */
    Event read(JsonBytes j, String botId, @Nullable String username, Instant now) throws IOException {
        updateId = -1;
        type = "";
        fields.reset();
        if (j.kind() != JsonBytes.OBJECT) {
            j.skip();
            throw new IllegalArgumentException("an update that is not a JSON object");
        }
        boolean hasId = false;
        Map<String, Object> body = null;
        JsonNode tree = null;
        if (j.beginObject()) {
            do {
                if (j.nameIs("update_id")) {
                    hasId = j.isLong();
                    long id = j.longValue(-1);
                    updateId = hasId ? id : -1;
                } else if (!type.isEmpty()) {
                    j.skip(); // an update has one content field
                } else if (!j.nullValue()) {
                    type = j.name();
                    if (j.kind() == JsonBytes.OBJECT && STREAMED.contains(type)) {
                        body = fields.object(j, MESSAGES.contains(type) ? "update_type" : null, type);
                    } else {
                        int from = j.position();
                        j.skip();
                        tree = Json.MAPPER.readTree(j.bytesSince(from));
                    }
                }
            } while (j.nextField());
        }
        if (!hasId) {
            throw new IllegalArgumentException("an update without an integer update_id");
        }
        if (type.isEmpty()) {
            throw new IllegalArgumentException("update " + updateId + " has no content");
        }
        String id = "tg:" + botId + ":" + updateId;
        Self self = self(botId);
        if (body == null) {
            return other(id, self, type, tree, now);
        }
        if (MESSAGES.contains(type)) {
            return message(id, self, type, body, username);
        }
        Instant time = body.get("date") instanceof Long date ? Instant.ofEpochSecond(date) : now;
        String subType = type.equals("callback_query") ? "" : text(map(body.get("new_chat_member")).get("status"));
        return new NoticeEvent(id, time, self, type, subType, body);
    }

    private Self self(String botId) {
        Self last = lastSelf;
        if (last != null && last.userId().equals(botId)) {
            return last;
        }
        Self self = new Self(PLATFORM, botId);
        lastSelf = self;
        return self;
    }

    /** An update of a type not read as it streams: its fields as sent, and {@code raw}, its JSON. */
    private Event other(String id, Self self, String type, @Nullable JsonNode body, Instant now) {
        Map<String, Object> raw = new LinkedHashMap<>();
        raw.put("update_id", updateId);
        raw.put(type, body);
        String json;
        try {
            json = Json.MAPPER.writeValueAsString(raw);
        } catch (IOException e) {
            throw new IllegalArgumentException("update " + updateId + " cannot be written again as JSON", e);
        }
        if (body == null || !body.isObject()) {
            return new NoticeEvent(id, now, self, type, "", Map.of("raw", json));
        }
        LinkedHashMap<String, Object> fields = Objects.requireNonNull(Json.MAPPER.convertValue(body, MAP));
        fields.values().removeIf(Objects::isNull);
        fields.put("raw", json);
        Instant time = body.path("date").canConvertToLong() ? Instant.ofEpochSecond(body.get("date").asLong()) : now;
        return new NoticeEvent(id, time, self, type, "", fields);
    }

    private Event message(String id, Self self, String type, Map<String, Object> m, @Nullable String username) {
        Map<String, Object> chat = map(m.get("chat"));
        if (!(m.get("message_id") instanceof Long messageId) || !(chat.get("id") instanceof Long chatNumber)
                || !(m.get("date") instanceof Long date)) {
            throw new IllegalArgumentException(type + " without message_id, chat.id or date");
        }
        String chatId = chatNumber.toString();
        Instant time = Instant.ofEpochSecond(m.get("edit_date") instanceof Long edited ? edited : date);
        String subType = type.startsWith("edited_") ? "edited" : "";
        Object from = map(m.get("from")).get("id");
        Object senderChat = map(m.get("sender_chat")).get("id");
        String userId = from instanceof Long f ? f.toString() : senderChat instanceof Long s ? s.toString() : chatId;
        Message message = segments(m, self.userId(), username);
        String messageIdText = messageId.toString();
        return switch (text(chat.get("type"))) {
            case "private" -> new PrivateMessage(id, time, self, subType, messageIdText, message, userId,
                    ReplyChannel.UNBOUND, m);
            case "group", "supergroup" -> new GroupMessage(id, time, self, subType, messageIdText, message, userId,
                    chatId, ReplyChannel.UNBOUND, m);
            case "channel" -> new ChannelMessage(id, time, self, subType, messageIdText, message, userId, chatId,
                    chatId, ReplyChannel.UNBOUND, m);
            default -> throw new IllegalArgumentException(type + " in a chat of unknown type \""
                    + text(chat.get("type")) + "\"");
        };
    }

    private Message segments(Map<String, Object> m, String botId, @Nullable String username) {
        count = 0;
        Map<String, Object> reply = map(m.get("reply_to_message"));
        if (reply.get("message_id") instanceof Long replyId) {
            Object from = map(reply.get("from")).get("id");
            add(new Segment.Reply(replyId.toString(), from instanceof Long f ? f.toString() : null));
        }
        if (m.get("photo") instanceof List<?> photo && !photo.isEmpty()) {
            // sizes come smallest first
            add(new Segment.Image(text(map(photo.get(photo.size() - 1)).get("file_id"))));
        }
        for (String media : MEDIA) {
            if (m.get(media) instanceof Map<?, ?> v) {
                add(new Segment.Other(media, map(v)));
            }
        }
        if (m.get("text") instanceof String text) {
            text(text, m.get("entities"), botId, username);
        } else if (m.get("caption") instanceof String caption) {
            text(caption, m.get("caption_entities"), botId, username);
        }
        Segment[] s = segments;
        // The fixed-arity List.of keep the array they make; Message keeps an immutable list as it is.
        List<Segment> list = switch (count) {
            case 0 -> List.of();
            case 1 -> List.of(s[0]);
            case 2 -> List.of(s[0], s[1]);
            case 3 -> List.of(s[0], s[1], s[2]);
            case 4 -> List.of(s[0], s[1], s[2], s[3]);
            default -> List.of(Arrays.copyOf(s, count));
        };
        Arrays.fill(s, 0, count, null);
        return new Message(list);
    }

    private void add(Segment s) {
        if (count == segments.length) {
            segments = Arrays.copyOf(segments, count * 2);
        }
        segments[count++] = s;
    }

    /** {@code text} cut at its mention and command entities (offsets in UTF-16 units, as Java's strings). */
    private void text(String text, @Nullable Object entities, String botId, @Nullable String username) {
        StringBuilder out = plain;
        out.setLength(0);
        int pos = 0;
        boolean cut = false;
        if (entities instanceof List<?> list) {
            for (Object o : list) {
                Map<String, Object> e = map(o);
                String type = text(e.get("type"));
                int off = e.get("offset") instanceof Long l ? (int) Math.min(l, Integer.MAX_VALUE) : -1;
                int end = e.get("length") instanceof Long l ? (int) Math.min(off + l, Integer.MAX_VALUE) : off;
                if (off < pos || end > text.length() || end <= off
                        || !(type.equals("mention") || type.equals("text_mention") || type.equals("bot_command"))) {
                    continue; // formatting, links and nested or broken entities stay text
                }
                Segment s = switch (type) {
                    case "mention" -> {
                        boolean self = username != null && end - off - 1 == username.length()
                                && text.regionMatches(true, off + 1, username, 0, username.length());
                        yield new Segment.Mention(self ? botId : text.substring(off + 1, end));
                    }
                    case "text_mention" -> map(e.get("user")).get("id") instanceof Long user
                            ? new Segment.Mention(user.toString()) : null;
                    default -> {
                        int at = text.indexOf('@', off);
                        if (at < 0 || at >= end || username == null || (end - at - 1 == username.length()
                                && text.regionMatches(true, at + 1, username, 0, username.length()))) {
                            boolean suffix = at >= 0 && at < end;
                            out.append(text, pos, suffix ? at : end); // this bot's: its suffix cut
                            pos = end;
                            cut |= suffix;
                            yield null;
                        }
                        String command = text.substring(off, end);
                        yield new Segment.Other("bot_command", Map.of("command", command, "bot",
                                command.substring(at - off + 1)));
                    }
                };
                if (s == null) {
                    continue; // a command for this bot is in the text now; a text_mention without a user stays text
                }
                out.append(text, pos, off);
                flush(out);
                add(s);
                pos = end;
                cut = true;
            }
        }
        if (!cut) {
            if (!text.isEmpty()) {
                add(new Segment.Text(text)); // nothing cut: the string as it came
            }
            return;
        }
        out.append(text, pos, text.length());
        flush(out);
    }

    private void flush(StringBuilder out) {
        if (!out.isEmpty()) {
            add(new Segment.Text(out.toString()));
            out.setLength(0);
        }
    }

    @SuppressWarnings("unchecked") // the reader's maps are Map<String, Object>
    private static Map<String, Object> map(@Nullable Object o) {
        return o instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
    }

    private static String text(@Nullable Object o) {
        return o instanceof String s ? s : "";
    }
}
