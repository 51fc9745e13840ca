package dev.pulsebus.telegram;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import dev.pulsebus.adapter.FieldReader;
import dev.pulsebus.adapter.JsonBytes;
import dev.pulsebus.event.ChannelMessage;
import dev.pulsebus.event.Event;
import dev.pulsebus.event.FieldMap;
import dev.pulsebus.event.GroupMessage;
import dev.pulsebus.event.Message;
import dev.pulsebus.event.NoticeEvent;
import dev.pulsebus.event.PrivateMessage;
import dev.pulsebus.event.ReplyChannel;
import dev.pulsebus.event.Segment;
import dev.pulsebus.event.Self;
import dev.pulsebus.internal.Json;
import dev.pulsebus.internal.SlotPool;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;
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
 * <p>The update is read straight from its bytes ({@link JsonBytes}), without a tree. Of a message, what its
 * record is made of (ids, date, chat, text and entities, reply, photo and media) is read as it streams past;
 * the rest is checked and passed over, and {@code extra} keeps a copy of the message's bytes, from which it
 * builds its map at its first read ({@link FieldMap#deferred}, on the reading thread, with {@link FieldReader}:
 * maps copied out once at their exact size, values Telegram enumerates as shared constants, strings and
 * objects that repeat made once). The pipeline itself never reads {@code extra}, so a message no module
 * looks into costs no map. One decoder per thread is reused update after update, and keeps the bot's
 * {@link Self} while updates are for the same bot. An update without what its type needs throws
 * {@link IllegalArgumentException} saying what, once the reader is past it (so the next update of a batch
 * can be read). Not thread-safe: {@link #forThisThread()}.
 */
final class UpdateDecoder {

    static final String PLATFORM = "telegram";
    private static final TypeReference<LinkedHashMap<String, Object>> MAP = new TypeReference<>() { };
    private static final Set<String> MESSAGES = Set.of("message", "edited_message", "channel_post",
            "edited_channel_post");
    /** The notices read as they stream; any other type is read as a tree, for its raw JSON. */
    private static final Set<String> NOTICES = Set.of("my_chat_member", "chat_member", "callback_query");
    private static final List<String> MEDIA = List.of("document", "sticker", "animation", "audio", "video",
            "video_note", "voice");
    /** Values the Bot API enumerates (chat types, entity types, member statuses), kept as these constants. */
    private static final String[] KNOWN = {"private", "group", "supergroup", "channel", "mention", "text_mention",
        "bot_command", "url", "hashtag", "cashtag", "email", "bold", "italic", "underline", "code", "pre",
        "text_link", "spoiler", "member", "administrator", "creator", "left", "kicked", "restricted", "regular"};

    private static final JsonBytes.Known KNOWN_VALUES = JsonBytes.known(KNOWN);

    private static final ThreadLocal<UpdateDecoder> DECODERS = ThreadLocal.withInitial(UpdateDecoder::new);
    /**
     * What builds a message's {@code extra} at its first read, on the reading thread: pooled rather than one
     * per thread, as the threads that read it are often a module's virtual threads, each new.
     */
    private static final SlotPool<Extra.Reader> EXTRA_READERS = new SlotPool<>(
            Math.max(4, 2 * Runtime.getRuntime().availableProcessors()), Extra.Reader::new);

    private final FieldReader fields = new FieldReader(KNOWN);
    private final JsonBytes json = reader();
    private final StringBuilder plain = new StringBuilder(64);
    private Segment[] segments = new Segment[8];
    private int count;
    private long updateId = -1;
    private String type = "";
    private @Nullable Self lastSelf;

    // What the record of the message read last is made of, read as the message streams past.
    private static final int MESSAGE_ID = 1;
    private static final int DATE = 1 << 1;
    private static final int EDIT_DATE = 1 << 2;
    private static final int FROM = 1 << 3;
    private static final int SENDER_CHAT = 1 << 4;
    private static final int CHAT = 1 << 5;
    private static final int REPLY = 1 << 6;
    private static final int REPLY_FROM = 1 << 7;
    private static final int PHOTO = 1 << 8;
    /** Which of the numbers below the message had (as integers within a long). */
    private int has;
    private long messageId;
    private long date;
    private long editDate;
    private long fromId;
    private long senderChatId;
    private long chatId;
    private long replyId;
    private long replyFromId;
    private String chatType = "";
    private String photoFile = "";
    private @Nullable String text;
    private @Nullable String caption;
    /** The media fields ({@link #MEDIA}) as segment data, by their index there. */
    private final @Nullable Map<?, ?>[] media = new Map<?, ?>[MEDIA.size()];
    /** The entities of the text in {@code [textFrom, textTo)}, of the caption in {@code [captionFrom, captionTo)}. */
    private int entityCount;
    private int textFrom;
    private int textTo;
    private int captionFrom;
    private int captionTo;
    private String[] entityType = new String[8];
    private int[] entityOffset = new int[8];
    private int[] entityEnd = new int[8];
    private long[] entityUser = new long[8];
    private boolean[] entityHasUser = new boolean[8];
    /** What {@link #id(JsonBytes)} read: whether the object had an integer {@code id}, and that id. */
    private boolean idFound;
    private long foundId;

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
                    if (j.kind() == JsonBytes.OBJECT && MESSAGES.contains(type)) {
                        int from = j.position();
                        readMessage(j);
                        body = FieldMap.deferred(new Extra(j.bytesSince(from), type));
                    } else if (j.kind() == JsonBytes.OBJECT && NOTICES.contains(type)) {
                        body = fields.object(j, null, null);
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

    /** Reads one field of an object: its key is {@link JsonBytes#name()}, its value (not a null) next. */
    @FunctionalInterface
    private interface FieldVisitor {
        void field(JsonBytes j) throws IOException;
    }

    /** The fields (not nulls, as in {@code extra}) of the object that is next, each to {@code visitor}. */
    private static void walk(JsonBytes j, FieldVisitor visitor) throws IOException {
        if (j.kind() != JsonBytes.OBJECT) {
            j.skip(); // not an object: no fields
            return;
        }
        if (j.beginObject()) {
            do {
                if (!j.nullValue()) {
                    visitor.field(j);
                }
            } while (j.nextField());
        }
    }

    // The visitors, made once (a method reference made at each use would be allocated there).
    private final FieldVisitor messageField = this::messageField;
    private final FieldVisitor idField = this::idField;
    private final FieldVisitor chatField = this::chatField;
    private final FieldVisitor replyField = this::replyField;
    private final FieldVisitor photoField = this::photoField;
    private final FieldVisitor entityField = this::entityField;

    /**
     * Reads the message that is next in {@code j} for what its record is made of (ids, date, chat, text or
     * caption and their entities, reply, photo, media), checking all of it and passing over the rest. The
     * last of a repeated key counts and a value of the wrong type is none, as in {@code extra}.
     */
    private void readMessage(JsonBytes j) throws IOException {
        has = 0;
        chatType = "";
        photoFile = "";
        text = null;
        caption = null;
        Arrays.fill(media, null);
        entityCount = 0;
        textFrom = 0;
        textTo = 0;
        captionFrom = 0;
        captionTo = 0;
        walk(j, messageField);
    }

    private void messageField(JsonBytes j) throws IOException {
        String key = j.name();
        switch (key) {
            case "message_id" -> messageId = number(j, MESSAGE_ID, messageId);
            case "date" -> date = number(j, DATE, date);
            case "edit_date" -> editDate = number(j, EDIT_DATE, editDate);
            case "from" -> fromId = idOf(j, FROM, fromId);
            case "sender_chat" -> senderChatId = idOf(j, SENDER_CHAT, senderChatId);
            case "chat" -> {
                has &= ~CHAT;
                chatType = "";
                walk(j, chatField);
            }
            case "reply_to_message" -> {
                has &= ~(REPLY | REPLY_FROM);
                walk(j, replyField);
            }
            case "photo" -> readPhoto(j);
            case "text" -> text = stringOrNone(j);
            case "caption" -> caption = stringOrNone(j);
            case "entities" -> {
                textFrom = entityCount;
                readEntities(j);
                textTo = entityCount;
            }
            case "caption_entities" -> {
                captionFrom = entityCount;
                readEntities(j);
                captionTo = entityCount;
            }
            default -> {
                int m = MEDIA.indexOf(key);
                if (m < 0) {
                    j.skip();
                } else {
                    media[m] = j.kind() == JsonBytes.OBJECT ? fields.object(j, null, null) : null;
                    if (media[m] == null) {
                        j.skip(); // not an object: no segment
                    }
                }
            }
        }
    }

    /** The integer that is next, with {@code flag} set in {@link #has}; else {@code was}, the flag cleared. */
    private long number(JsonBytes j, int flag, long was) throws IOException {
        if (j.isLong()) {
            has |= flag;
            return j.longValue(0);
        }
        has &= ~flag;
        j.skip();
        return was;
    }

    /** {@link #id(JsonBytes)} of the object that is next, with {@code flag} set in {@link #has} when it had one. */
    private long idOf(JsonBytes j, int flag, long was) throws IOException {
        long id = id(j);
        has = idFound ? has | flag : has & ~flag;
        return idFound ? id : was;
    }

    /** The integer {@code id} of the object that is next ({@link #idFound}), the rest passed over. */
    private long id(JsonBytes j) throws IOException {
        idFound = false;
        walk(j, idField);
        return foundId;
    }

    private void idField(JsonBytes j) throws IOException {
        if (j.nameIs("id")) {
            idFound = j.isLong();
            foundId = idFound ? j.longValue(0) : skipped(j, 0);
        } else {
            j.skip();
        }
    }

    private void chatField(JsonBytes j) throws IOException {
        if (j.nameIs("id")) {
            chatId = number(j, CHAT, chatId);
        } else if (j.nameIs("type")) {
            chatType = j.kind() == JsonBytes.STRING ? j.string(KNOWN_VALUES) : skipped(j, "");
        } else {
            j.skip();
        }
    }

    private void replyField(JsonBytes j) throws IOException {
        if (j.nameIs("message_id")) {
            replyId = number(j, REPLY, replyId);
        } else if (j.nameIs("from")) {
            replyFromId = idOf(j, REPLY_FROM, replyFromId);
        } else {
            j.skip();
        }
    }

    /** The largest size's {@code file_id} (sizes come smallest first); a photo without sizes is none. */
    private void readPhoto(JsonBytes j) throws IOException {
        has &= ~PHOTO;
        photoFile = "";
        if (j.kind() != JsonBytes.ARRAY) {
            j.skip();
            return;
        }
        if (j.beginArray()) {
            do {
                if (!j.nullValue()) {
                    has |= PHOTO;
                    photoFile = "";
                    walk(j, photoField);
                }
            } while (j.nextElement());
        }
    }

    private void photoField(JsonBytes j) throws IOException {
        if (j.nameIs("file_id") && j.kind() == JsonBytes.STRING) {
            photoFile = j.string();
        } else {
            j.skip();
        }
    }

    /** The entities that are next, after those read before; anything but an object among them left out. */
    private void readEntities(JsonBytes j) throws IOException {
        if (j.kind() != JsonBytes.ARRAY) {
            j.skip();
            return;
        }
        if (!j.beginArray()) {
            return;
        }
        do {
            if (j.kind() != JsonBytes.OBJECT) {
                j.skip();
                continue;
            }
            if (entityCount == entityType.length) {
                int n = entityCount * 2;
                entityType = Arrays.copyOf(entityType, n);
                entityOffset = Arrays.copyOf(entityOffset, n);
                entityEnd = Arrays.copyOf(entityEnd, n);
                entityUser = Arrays.copyOf(entityUser, n);
                entityHasUser = Arrays.copyOf(entityHasUser, n);
            }
            int e = entityCount++;
            entityType[e] = "";
            entityOffset[e] = -1;
            entityEnd[e] = Integer.MIN_VALUE; // no length: it ends where it starts
            entityHasUser[e] = false;
            walk(j, entityField);
            if (entityEnd[e] == Integer.MIN_VALUE) {
                entityEnd[e] = entityOffset[e];
            } else {
                // UTF-16 offsets of a Java string: anything outside an int is no place in the text
                entityEnd[e] = (int) Math.min((long) entityOffset[e] + entityEnd[e], Integer.MAX_VALUE);
            }
        } while (j.nextElement());
    }

    /** A field of the entity read last: its length kept in {@code entityEnd} until the entity is read. */
    private void entityField(JsonBytes j) throws IOException {
        int e = entityCount - 1;
        if (j.nameIs("type")) {
            entityType[e] = j.kind() == JsonBytes.STRING ? j.string(KNOWN_VALUES) : skipped(j, "");
        } else if (j.nameIs("offset")) {
            entityOffset[e] = j.isLong() ? (int) Math.max(-1, Math.min(j.longValue(0), Integer.MAX_VALUE))
                    : (int) skipped(j, -1);
        } else if (j.nameIs("length")) {
            entityEnd[e] = j.isLong() ? (int) Math.max(-1, Math.min(j.longValue(0), Integer.MAX_VALUE))
                    : (int) skipped(j, Integer.MIN_VALUE);
        } else if (j.nameIs("user")) {
            entityUser[e] = id(j);
            entityHasUser[e] = idFound;
        } else {
            j.skip();
        }
    }

    /** Passes over the value that is next, answering {@code value}. */
    private static long skipped(JsonBytes j, long value) throws IOException {
        j.skip();
        return value;
    }

    /** Passes over the value that is next, answering {@code value}. */
    private static String skipped(JsonBytes j, String value) throws IOException {
        j.skip();
        return value;
    }

    /** The string that is next; any other value passed over as none. */
    private static @Nullable String stringOrNone(JsonBytes j) throws IOException {
        if (j.kind() == JsonBytes.STRING) {
            return j.string();
        }
        j.skip();
        return null;
    }

    /** The message read last ({@link #readMessage}) as its record, {@code extra} its fields. */
    private Event message(String id, Self self, String type, Map<String, Object> extra, @Nullable String username) {
        if ((has & (MESSAGE_ID | CHAT | DATE)) != (MESSAGE_ID | CHAT | DATE)) {
            throw new IllegalArgumentException(type + " without message_id, chat.id or date");
        }
        String chatIdText = Long.toString(chatId);
        Instant time = Instant.ofEpochSecond((has & EDIT_DATE) != 0 ? editDate : date);
        String subType = type.startsWith("edited_") ? "edited" : "";
        String userId = (has & FROM) != 0 ? Long.toString(fromId)
                : (has & SENDER_CHAT) != 0 ? Long.toString(senderChatId) : chatIdText;
        Message message = segments(self.userId(), username);
        String messageIdText = Long.toString(messageId);
        return switch (chatType) {
            case "private" -> new PrivateMessage(id, time, self, subType, messageIdText, message, userId,
                    ReplyChannel.UNBOUND, extra);
            case "group", "supergroup" -> new GroupMessage(id, time, self, subType, messageIdText, message, userId,
                    chatIdText, ReplyChannel.UNBOUND, extra);
            case "channel" -> new ChannelMessage(id, time, self, subType, messageIdText, message, userId,
                    chatIdText, chatIdText, ReplyChannel.UNBOUND, extra);
            default -> throw new IllegalArgumentException(type + " in a chat of unknown type \"" + chatType + "\"");
        };
    }

    private Message segments(String botId, @Nullable String username) {
        count = 0;
        if ((has & REPLY) != 0) {
            add(new Segment.Reply(Long.toString(replyId), (has & REPLY_FROM) != 0 ? Long.toString(replyFromId) : null));
        }
        if ((has & PHOTO) != 0) {
            add(new Segment.Image(photoFile));
        }
        for (int m = 0; m < media.length; m++) {
            if (media[m] != null) {
                add(new Segment.Other(MEDIA.get(m), map(media[m])));
            }
        }
        if (text != null) {
            text(text, textFrom, textTo, botId, username);
        } else if (caption != null) {
            text(caption, captionFrom, captionTo, botId, username);
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
    private void text(String text, int from, int to, String botId, @Nullable String username) {
        StringBuilder out = plain;
        out.setLength(0);
        int pos = 0;
        boolean cut = false;
        for (int e = from; e < to; e++) {
            String type = entityType[e];
            int off = entityOffset[e];
            int end = entityEnd[e];
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
                case "text_mention" -> entityHasUser[e] ? new Segment.Mention(Long.toString(entityUser[e])) : null;
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

    /**
     * A message's fields as sent, and {@code update_type}, built from the message's bytes (checked when its
     * update was read) at the first read of its {@code extra}, on the reading thread.
     */
    private static final class Extra implements Supplier<Map<String, Object>> {
        private final byte[] message;
        private final String type;

        Extra(byte[] message, String type) {
            this.message = message;
            this.type = type;
        }

        @Override
        public Map<String, Object> get() {
            Reader reader = EXTRA_READERS.take();
            try {
                return reader.read(message, type);
            } finally {
                EXTRA_READERS.give(reader);
            }
        }

        /** A reader of messages' fields, for one thread at a time. */
        static final class Reader {
            private final JsonBytes json = reader();
            private final FieldReader fields = new FieldReader(KNOWN);

            Map<String, Object> read(byte[] message, String type) {
                try {
                    JsonBytes j = json.reset(message, 0, message.length);
                    Map<String, Object> read = fields.object(j, "update_type", type);
                    j.finish();
                    return read;
                } catch (JsonBytes.MalformedException e) {
                    throw new IllegalStateException("a message that was read when it came fails to read again", e);
                } finally {
                    fields.reset(); // keeps nothing of it alive
                }
            }
        }
    }
}
