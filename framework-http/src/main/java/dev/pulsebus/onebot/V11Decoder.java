package dev.pulsebus.onebot;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.pulsebus.event.Event;
import dev.pulsebus.event.FieldMap;
import dev.pulsebus.event.GroupMessage;
import dev.pulsebus.event.Message;
import dev.pulsebus.event.MetaEvent;
import dev.pulsebus.event.NoticeEvent;
import dev.pulsebus.event.PrivateMessage;
import dev.pulsebus.event.RequestEvent;
import dev.pulsebus.event.Segment;
import dev.pulsebus.event.Self;
import dev.pulsebus.internal.Json;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Reads a v11 event straight from its bytes with Jackson's streaming parser, without the tree a
 * {@code readTree} builds and then walks: the fields the records hold go to locals, segments are made as
 * they are read (a {@code text}, {@code at}, {@code reply} or {@code image} segment whose {@code type}
 * comes first without a map), and only the fields kept in {@code extra} or {@code fields} become Java
 * values. This is the adapter's hot path: one per inbound frame, on the I/O thread, so it allocates little
 * beyond what the event keeps: one decoder per thread is reused frame after frame (its maps are built on
 * one stack of keys and values and copied out at their exact size as {@link FieldMap}s), values the spec
 * enumerates (types, {@code sender.sex}, {@code sender.role}) are shared constants, and an image's {@code file} becomes a string only when it has no
 * {@code url}. Not thread-safe; each thread has its own.
 */
final class V11Decoder {

    private static final JsonFactory JSON = Json.MAPPER.getFactory();

    private final JsonValues nulls = new JsonValues();
    private @Nullable String postType;
    private String subType = "";
    private @Nullable String detail; // notice_type, request_type or meta_event_type
    private String detailKey = "";
    private String messageType = "";
    private String self = "";
    private String messageId = "";
    private String userId = "";
    private String groupId = "";
    private String flag = "";
    private long time;
    private @Nullable Message message;
    /**
     * The tokens of {@code message_type}, {@code message_id}, {@code user_id} and {@code group_id} (null when
     * absent), read into their record components: they are also fields of the other events, made there as
     * values from the text, but a message, whose record holds them, gets no second copy.
     */
    private @Nullable JsonToken messageTypeToken;
    private @Nullable JsonToken messageIdToken;
    private @Nullable JsonToken userIdToken;
    private @Nullable JsonToken groupIdToken;
    /**
     * The keys and values of the maps being read, a nested object's above its parent's; the frame's own
     * fields from 0. Each map is copied out at its exact size ({@link FieldMap#copyOf}).
     */
    private Object[] stack = new Object[64];
    private int top;
    /** The frame's own fields once past {@link FieldMap#MAX_SCANNED} keys (then no longer on the stack). */
    private @Nullable Map<String, Object> restSpilled;
    /** The segments of the message being read. */
    private Segment[] segments = new Segment[8];
    /** An image's {@code file}, kept as characters until the segment ends: unused when it has a {@code url}. */
    private char[] file = new char[64];
    /** The bot of the last frame read on this thread, reused while frames name the same bot. */
    private @Nullable Self lastSelf;

    /** Values the spec gives these fields, returned as these constants instead of made again per frame. */
    private static final String[][] POST_TYPES = byLength("message", "notice", "request", "meta_event");
    private static final String[][] MESSAGE_TYPES = byLength("group", "private");
    private static final String[][] SUB_TYPES = byLength("normal", "friend", "group", "anonymous", "notice", "other",
        "", "connect", "enable", "disable", "set", "unset", "approve", "invite", "kick", "kick_me", "leave", "ban",
        "lift_ban", "poke", "lucky_king", "honor", "add");
    /** The values of v11's enumerated object fields ({@code sender.sex}, {@code sender.role}, {@code message_format}) and "". */
    private static final String[][] ENUMERATED = byLength("", "male", "female", "unknown", "member", "admin", "owner",
        "array", "string");
    private static final String[][] SEGMENT_TYPES = byLength("text", "at", "reply", "image", "face", "record",
        "video", "forward", "json", "xml");

    /** One per thread, reused frame after frame: what it holds between frames is cleared first. */
    private static final ThreadLocal<V11Decoder> DECODERS = ThreadLocal.withInitial(V11Decoder::new);

    private V11Decoder() {
    }

    private void reset() {
        nulls.nulls = 0;
        nulls.firstNull = "";
        postType = null;
        subType = "";
        detail = null;
        detailKey = "";
        messageType = "";
        self = "";
        messageId = "";
        userId = "";
        groupId = "";
        flag = "";
        time = 0;
        message = null;
        messageTypeToken = null;
        messageIdToken = null;
        userIdToken = null;
        groupIdToken = null;
        Arrays.fill(stack, 0, top, null);
        top = 0;
        restSpilled = null;
    }

    /**
     * The event in {@code frame}: an {@link Event}, {@link Protocol#RESPONSE} when the frame is an object but
     * no event (no {@code post_type}: an action's response, read again as a tree by the caller),
     * {@link Protocol#NOT_JSON}, or null when it is an event the records cannot hold (counted).
     */
    static @Nullable Object decode(ByteBuf frame, String selfHint, String platform, OneBotMetrics metrics) {
        V11Decoder d = DECODERS.get();
        d.reset();
        try (JsonParser p = parser(frame)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return Protocol.NOT_JSON;
            }
            d.readFields(p);
        } catch (IOException e) {
            return Protocol.NOT_JSON;
        } catch (IllegalArgumentException | NullPointerException e) {
            metrics.bad(OneBotMetrics.Bad.INVALID, "a " + d.postType + " event: " + e.getMessage());
            return null;
        }
        if (d.postType == null) {
            return Protocol.RESPONSE;
        }
        return d.event(selfHint, platform, metrics, frame);
    }

    /** Per I/O thread: a direct frame's bytes are copied here for the parser (a heap one is read in place). */
    private static final ThreadLocal<byte[]> SCRATCH = ThreadLocal.withInitial(() -> new byte[8192]);

    private static JsonParser parser(ByteBuf frame) throws IOException {
        int n = frame.readableBytes();
        if (frame.hasArray()) {
            return JSON.createParser(frame.array(), frame.arrayOffset() + frame.readerIndex(), n);
        }
        byte[] scratch = SCRATCH.get();
        if (scratch.length < n) {
            scratch = new byte[Math.max(n, scratch.length * 2)];
            if (scratch.length <= 1024 * 1024) {
                SCRATCH.set(scratch); // kept up to 1 MiB per thread; larger frames get one of their own
            }
        }
        frame.getBytes(frame.readerIndex(), scratch, 0, n);
        return JSON.createParser(scratch, 0, n);
    }

    private void readFields(JsonParser p) throws IOException {
        JsonToken t;
        while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            t = p.nextToken();
            if (t == JsonToken.VALUE_NULL) {
                if (!JsonValues.nullable(name)) {
                    nulls.nullAt(name);
                }
                continue;
            }
            switch (name) {
                case "post_type" -> postType = constant(p, POST_TYPES);
                case "sub_type" -> subType = constant(p, SUB_TYPES);
                case "time" -> time = p.getValueAsLong(0);
                case "self_id" -> self = lastSelf != null && t.isScalarValue() && sameText(p, lastSelf.userId())
                        ? lastSelf.userId() : scalar(p);
                case "message" -> message = t == JsonToken.VALUE_STRING
                        ? V11Segments.read(CqCode.parse(p.getText()), nulls) : segments(p);
                case "notice_type", "request_type", "meta_event_type" -> {
                    detail = p.getValueAsString("");
                    detailKey = name;
                }
                case "message_type", "message_id", "user_id", "group_id" -> {
                    if (!t.isScalarValue()) {
                        putField(name, value(p, t, name)); // kept as it came; the record's component stays empty
                        continue;
                    }
                    switch (name) {
                        case "message_type" -> messageType = constant(p, MESSAGE_TYPES);
                        case "message_id" -> messageId = p.getText();
                        case "user_id" -> userId = p.getText();
                        default -> groupId = p.getText();
                    }
                    switch (name) {
                        case "message_type" -> messageTypeToken = t;
                        case "message_id" -> messageIdToken = t;
                        case "user_id" -> userIdToken = t;
                        default -> groupIdToken = t;
                    }
                }
                case "flag" -> {
                    Object v = value(p, t, name);
                    flag = v instanceof String f ? f : t.isScalarValue() ? p.getText() : "";
                    putField(name, v);
                }
                default -> putField(name, value(p, t, name));
            }
        }
    }

    /** Puts one of the frame's own fields (the stack's bottom map). */
    private void putField(String key, Object value) {
        if (restSpilled != null) {
            restSpilled.put(key, value);
        } else {
            restSpilled = put(0, key, value);
        }
    }

    /**
     * Puts {@code key} in the map on the stack from {@code base} (replacing its value when it is there);
     * past {@link FieldMap#MAX_SCANNED} keys, the map moved into the LinkedHashMap returned (else null).
     */
    private @Nullable Map<String, Object> put(int base, String key, Object value) {
        int hash = key.hashCode(); // cached in the (interned) name: most keys differ by it alone
        for (int i = base; i < top; i += 2) {
            Object seen = stack[i];
            if (seen == key || (seen.hashCode() == hash && seen.equals(key))) {
                stack[i + 1] = value;
                return null;
            }
        }
        if (top - base == FieldMap.MAX_SCANNED * 2) {
            LinkedHashMap<String, Object> all = new LinkedHashMap<>();
            for (int i = base; i < top; i += 2) {
                all.put((String) stack[i], stack[i + 1]);
            }
            all.put(key, value);
            Arrays.fill(stack, base, top, null);
            top = base;
            return all;
        }
        if (top + 2 > stack.length) {
            stack = Arrays.copyOf(stack, stack.length * 2);
        }
        stack[top++] = key;
        stack[top++] = value;
        return null;
    }

    /** The map on the stack from {@code base} (or {@code spilled}), taken off the stack. */
    private Map<String, Object> pop(int base, @Nullable Map<String, Object> spilled) {
        if (spilled != null) {
            return Map.copyOf(spilled);
        }
        Map<String, Object> map = FieldMap.copyOf(stack, base, top);
        Arrays.fill(stack, base, top, null);
        top = base;
        return map;
    }

    /** The id fields of a frame that is not a message, as the values {@link #value} would have made. */
    private void restoreIds() {
        restore("message_type", messageTypeToken, messageType);
        restore("message_id", messageIdToken, messageId);
        restore("user_id", userIdToken, userId);
        restore("group_id", groupIdToken, groupId);
    }

    private void restore(String key, @Nullable JsonToken t, String text) {
        if (t != null) {
            putField(key, switch (t) {
                case VALUE_NUMBER_INT -> integer(text);
                case VALUE_NUMBER_FLOAT -> Double.parseDouble(text);
                case VALUE_TRUE -> true;
                case VALUE_FALSE -> false;
                default -> text;
            });
        }
    }

    /** Whether the scalar at the parser reads as {@code text}, compared without making a string. */
    private static boolean sameText(JsonParser p, String text) throws IOException {
        return p.getTextLength() == text.length() && same(text, p.getTextCharacters(), p.getTextOffset());
    }

    private static Object integer(String digits) {
        try {
            return Long.parseLong(digits);
        } catch (NumberFormatException e) {
            return new java.math.BigInteger(digits); // past a long, as the parser's BIG_INTEGER
        }
    }

    /**
     * A string value that is one of {@code known} as that constant, without making it again; any other
     * value as its text ({@code ""} for a container).
     */
    private static String constant(JsonParser p, String[][] known) throws IOException {
        if (p.currentToken() != JsonToken.VALUE_STRING) {
            return p.getValueAsString("");
        }
        char[] chars = p.getTextCharacters();
        int offset = p.getTextOffset();
        int length = p.getTextLength();
        if (length < known.length) {
            for (String k : known[length]) {
                if (same(k, chars, offset)) {
                    return k;
                }
            }
        }
        return new String(chars, offset, length);
    }

    /** {@code values} by their length: {@link #constant} compares a text with those of its length only. */
    private static String[][] byLength(String... values) {
        int longest = 0;
        for (String v : values) {
            longest = Math.max(longest, v.length());
        }
        String[][] table = new String[longest + 1][];
        for (int length = 0; length <= longest; length++) {
            int len = length;
            table[length] = Arrays.stream(values).filter(v -> v.length() == len).toArray(String[]::new);
        }
        return table;
    }

    private static boolean same(String k, char[] chars, int offset) {
        for (int i = 0; i < k.length(); i++) {
            if (k.charAt(i) != chars[offset + i]) {
                return false;
            }
        }
        return true;
    }

    private static String scalar(JsonParser p) throws IOException {
        return p.currentToken().isScalarValue() ? p.getText() : skip(p);
    }

    private static String skip(JsonParser p) throws IOException {
        p.skipChildren();
        return "";
    }

    /**
     * The value at the parser as a plain Java value, nulls inside left out and counted; {@code path} names
     * it for the warning of a null inside (a nested path is made only when a container is entered).
     */
    private Object value(JsonParser p, JsonToken t, String path) throws IOException {
        return switch (t) {
            case VALUE_STRING -> p.getTextLength() < ENUMERATED.length ? constant(p, ENUMERATED) : p.getText();
            case VALUE_NUMBER_INT -> p.getNumberType() == JsonParser.NumberType.BIG_INTEGER
                    ? p.getBigIntegerValue() : (Object) p.getLongValue();
            case VALUE_NUMBER_FLOAT -> p.getDoubleValue();
            case VALUE_TRUE -> true;
            case VALUE_FALSE -> false;
            case START_OBJECT -> object(p, path);
            case START_ARRAY -> {
                List<Object> list = new ArrayList<>();
                JsonToken e;
                while ((e = p.nextToken()) != JsonToken.END_ARRAY) {
                    if (e == JsonToken.VALUE_NULL) {
                        nulls.nullAt(path + "[" + list.size() + "]");
                    } else {
                        list.add(value(p, e, path));
                    }
                }
                yield Collections.unmodifiableList(list);
            }
            default -> p.getText();
        };
    }

    private Map<String, Object> object(JsonParser p, String path) throws IOException {
        int base = top;
        Map<String, Object> spilled = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String key = p.currentName();
            JsonToken v = p.nextToken();
            if (v == JsonToken.VALUE_NULL) {
                if (!JsonValues.nullable(key)) {
                    nulls.nullAt(path + "." + key);
                }
                continue;
            }
            Object value = value(p, v, v.isStructStart() ? path + "." + key : path);
            if (spilled != null) {
                spilled.put(key, value);
            } else {
                spilled = put(base, key, value);
            }
        }
        return pop(base, spilled);
    }

    /** The array form, segment by segment (the mapping of {@link V11Segments}). */
    private Message segments(JsonParser p) throws IOException {
        if (p.currentToken() != JsonToken.START_ARRAY) {
            throw new IllegalArgumentException("message is neither a segment array nor a string");
        }
        int n = 0;
        JsonToken t;
        while ((t = p.nextToken()) == JsonToken.START_OBJECT) {
            Segment segment = segment(p);
            if (n == segments.length) {
                segments = Arrays.copyOf(segments, n * 2);
            }
            segments[n++] = segment;
        }
        if (t != JsonToken.END_ARRAY) {
            throw new IllegalArgumentException("a message segment is not an object");
        }
        Segment[] s = segments;
        // The fixed-arity List.of keep the array they make; Message keeps an immutable list as it is.
        List<Segment> list = switch (n) {
            case 0 -> List.of();
            case 1 -> List.of(s[0]);
            case 2 -> List.of(s[0], s[1]);
            case 3 -> List.of(s[0], s[1], s[2]);
            case 4 -> List.of(s[0], s[1], s[2], s[3]);
            case 5 -> List.of(s[0], s[1], s[2], s[3], s[4]);
            default -> List.of(Arrays.copyOf(s, n));
        };
        Arrays.fill(s, 0, n, null);
        return new Message(list);
    }

    private Segment segment(JsonParser p) throws IOException {
        String type = "";
        Map<String, Object> data = null;
        Segment known = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken v = p.nextToken();
            if (name.equals("type")) {
                type = constant(p, SEGMENT_TYPES);
            } else if (name.equals("data") && v == JsonToken.START_OBJECT) {
                known = type.isEmpty() ? null : known(p, type);
                if (known == null && p.currentToken() != JsonToken.END_OBJECT) {
                    data = object(p, type.isEmpty() ? "message.?" : "message." + type);
                }
            } else {
                p.skipChildren();
            }
        }
        if (known != null) {
            return known;
        }
        return V11Segments.segment(type, data == null ? Map.of() : data);
    }

    /**
     * The data of a {@code text}, {@code at}, {@code reply} or {@code image} segment read into its record,
     * leaving the parser at the data's end; null, with the parser still at the data's start, for others.
     */
    private @Nullable Segment known(JsonParser p, String type) throws IOException {
        if (!type.equals("text") && !type.equals("at") && !type.equals("reply") && !type.equals("image")) {
            return null;
        }
        String main = null;
        String url = null;
        int fileLength = -1;
        boolean image = type.equals("image");
        String wanted = V11Segments.mainKey(type);
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String key = p.currentName();
            JsonToken v = p.nextToken();
            if (v == JsonToken.VALUE_NULL) {
                nulls.nullAt("message." + type + "." + key);
            } else if (!v.isScalarValue()) {
                p.skipChildren();
            } else if (image && key.equals("file")) {
                fileLength = p.getTextLength(); // made a string only if no url comes
                if (file.length < fileLength) {
                    file = new char[Math.max(fileLength, file.length * 2)];
                }
                System.arraycopy(p.getTextCharacters(), p.getTextOffset(), file, 0, fileLength);
            } else if (key.equals(wanted)) {
                main = type.equals("at") && sameText(p, self) ? self : p.getText(); // a mention of the bot
            } else if (image && key.equals("url")) {
                url = p.getText();
            }
        }
        if (fileLength >= 0) {
            main = url != null && !url.isEmpty() ? "" : new String(file, 0, fileLength);
        }
        return V11Segments.known(type, main, url);
    }

    private @Nullable Event event(String selfHint, String platform, OneBotMetrics metrics, ByteBuf frame) {
        String type = postType == null ? "" : postType;
        String bot = self.isEmpty() ? selfHint : self;
        if (bot.isEmpty()) {
            metrics.bad(OneBotMetrics.Bad.INVALID, "a " + postType + " event without self_id");
            return null;
        }
        Self me = lastSelf != null && lastSelf.userId().equals(bot) && lastSelf.platform().equals(platform)
                ? lastSelf : new Self(platform, bot);
        lastSelf = me;
        Instant at = Instant.ofEpochSecond(time);
        Event event;
        try {
            event = switch (type) {
                case "message" -> message(me, at, metrics);
                case "notice" -> new NoticeEvent(bot + ":n:" + Protocol.digest(frame), at, me,
                        detail("notice_type"), subType, fields());
                case "request" -> new RequestEvent(bot + ":r:" + (flag.isEmpty()
                        ? Protocol.digest(frame) : flag), at, me, detail("request_type"), subType, fields());
                case "meta_event" -> new MetaEvent(bot + ":e:" + Protocol.digest(frame), at, me,
                        detail("meta_event_type"), subType, fields());
                default -> {
                    metrics.bad(OneBotMetrics.Bad.UNKNOWN_TYPE, "post_type \"" + postType + "\"");
                    yield null;
                }
            };
        } catch (IllegalArgumentException | NullPointerException e) {
            metrics.bad(OneBotMetrics.Bad.INVALID, "a " + postType + " event: " + e.getMessage());
            return null;
        }
        return Protocol.counted(event, nulls, metrics);
    }

    private @Nullable Event message(Self me, Instant at, OneBotMetrics metrics) {
        required(messageId, "message_id");
        required(userId, "user_id");
        if (message == null) {
            throw new IllegalArgumentException("no message");
        }
        String id = me.userId() + ":m:" + messageId;
        Map<String, Object> extra = pop(0, restSpilled);
        return switch (messageType) {
            case "private" -> new PrivateMessage(id, at, me, subType, messageId, message, userId, null, extra);
            case "group" -> new GroupMessage(id, at, me, subType, messageId, message, userId,
                    required(groupId, "group_id"), null, extra);
            default -> {
                metrics.bad(OneBotMetrics.Bad.UNKNOWN_TYPE, "message_type \"" + messageType + "\"");
                yield null;
            }
        };
    }

    /** The type's own {@code detailKey}: throws IllegalArgumentException when the frame has not that one. */
    private String detail(String key) {
        return required(key.equals(detailKey) ? detail : null, key);
    }

    /** The fields of an event that is no message: the rest, with its id fields. */
    private Map<String, Object> fields() {
        restoreIds();
        return pop(0, restSpilled);
    }

    private static String required(@Nullable String v, String field) {
        if (v == null || v.isEmpty()) {
            throw new IllegalArgumentException("no " + field);
        }
        return v;
    }
}
