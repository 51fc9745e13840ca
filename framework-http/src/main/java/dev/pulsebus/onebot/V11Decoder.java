package dev.pulsebus.onebot;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.pulsebus.event.Event;
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
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Reads a v11 event straight from its bytes with Jackson's streaming parser, without the tree a
 * {@code readTree} builds and then walks: the fields the records hold go to locals, segments are made as
 * they are read (a {@code text}, {@code at}, {@code reply} or {@code image} segment whose {@code type}
 * comes first without a map), and only the fields kept in {@code extra} or {@code fields} become Java
 * values. This is the adapter's hot path: one per inbound frame, on the I/O thread. One per frame; not
 * thread-safe.
 */
final class V11Decoder {

    private static final JsonFactory JSON = Json.MAPPER.getFactory();

    private final JsonValues nulls = new JsonValues();
    private @Nullable String postType;
    private String subType = "";
    private @Nullable String detail; // notice_type, request_type or meta_event_type
    private String messageType = "";
    private String self = "";
    private String messageId = "";
    private String userId = "";
    private String groupId = "";
    private String flag = "";
    private long time;
    private @Nullable Message message;
    /** A HashMap: the record copies it into an immutable map, whose order is its own anyway. */
    private final Map<String, Object> rest = new HashMap<>(32);

    private V11Decoder() {
    }

    /**
     * The event in {@code frame}: an {@link Event}, {@link Protocol#RESPONSE} when the frame is an object but
     * no event (no {@code post_type}: an action's response, read again as a tree by the caller),
     * {@link Protocol#NOT_JSON}, or null when it is an event the records cannot hold (counted).
     */
    static @Nullable Object decode(ByteBuf frame, String selfHint, String platform, OneBotMetrics metrics) {
        V11Decoder d = new V11Decoder();
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
                case "post_type" -> postType = p.getValueAsString("");
                case "sub_type" -> subType = p.getValueAsString("");
                case "time" -> time = p.getValueAsLong(0);
                case "self_id" -> self = scalar(p);
                case "message" -> message = t == JsonToken.VALUE_STRING
                        ? V11Segments.read(CqCode.parse(p.getText()), nulls) : segments(p);
                default -> {
                    switch (name) { // also kept as a field: a notice's user_id is its field, a message's a component
                        case "message_type" -> messageType = p.getValueAsString("");
                        case "message_id" -> messageId = scalar(p);
                        case "user_id" -> userId = scalar(p);
                        case "group_id" -> groupId = scalar(p);
                        case "flag" -> flag = scalar(p);
                        case "notice_type", "request_type", "meta_event_type" -> detail = p.getValueAsString("");
                        default -> { }
                    }
                    rest.put(name, value(p, t, name));
                }
            }
        }
    }

    private static String scalar(JsonParser p) throws IOException {
        return p.currentToken().isScalarValue() ? p.getText() : skip(p);
    }

    private static String skip(JsonParser p) throws IOException {
        p.skipChildren();
        return "";
    }

    /** The value at the parser as a plain Java value, nulls inside left out and counted. */
    private Object value(JsonParser p, JsonToken t, String path) throws IOException {
        return switch (t) {
            case VALUE_STRING -> p.getText();
            case VALUE_NUMBER_INT -> p.getNumberType() == JsonParser.NumberType.BIG_INTEGER
                    ? p.getBigIntegerValue() : (Object) p.getLongValue();
            case VALUE_NUMBER_FLOAT -> p.getDoubleValue();
            case VALUE_TRUE -> true;
            case VALUE_FALSE -> false;
            case START_OBJECT -> Collections.unmodifiableMap(object(p, path));
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
        Map<String, Object> map = new HashMap<>();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String key = p.currentName();
            JsonToken v = p.nextToken();
            if (v == JsonToken.VALUE_NULL) {
                if (!JsonValues.nullable(key)) {
                    nulls.nullAt(path + "." + key);
                }
            } else {
                map.put(key, value(p, v, path + "." + key));
            }
        }
        return map;
    }

    /** The array form, segment by segment (the mapping of {@link V11Segments}). */
    private Message segments(JsonParser p) throws IOException {
        if (p.currentToken() != JsonToken.START_ARRAY) {
            throw new IllegalArgumentException("message is neither a segment array nor a string");
        }
        List<Segment> segments = new ArrayList<>(4);
        JsonToken t;
        while ((t = p.nextToken()) == JsonToken.START_OBJECT) {
            segments.add(segment(p));
        }
        if (t != JsonToken.END_ARRAY) {
            throw new IllegalArgumentException("a message segment is not an object");
        }
        return new Message(segments);
    }

    private Segment segment(JsonParser p) throws IOException {
        String type = "";
        Map<String, Object> data = null;
        Segment known = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken v = p.nextToken();
            if (name.equals("type")) {
                type = p.getValueAsString("");
            } else if (name.equals("data") && v == JsonToken.START_OBJECT) {
                known = type.isEmpty() ? null : known(p, type);
                if (known == null && p.currentToken() != JsonToken.END_OBJECT) {
                    data = object(p, "message." + (type.isEmpty() ? "?" : type));
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
        String wanted = V11Segments.mainKey(type);
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String key = p.currentName();
            JsonToken v = p.nextToken();
            if (v == JsonToken.VALUE_NULL) {
                nulls.nullAt("message." + type + "." + key);
            } else if (!v.isScalarValue()) {
                p.skipChildren();
            } else if (key.equals(wanted)) {
                main = p.getText();
            } else if (key.equals("url") && type.equals("image")) {
                url = p.getText();
            }
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
        Self me = new Self(platform, bot);
        Instant at = Instant.ofEpochSecond(time);
        Event event;
        try {
            event = switch (type) {
                case "message" -> message(me, at, metrics);
                case "notice" -> new NoticeEvent(bot + ":n:" + Protocol.digest(frame), at, me,
                        required(detail, "notice_type"), subType, without(rest, "notice_type"));
                case "request" -> new RequestEvent(bot + ":r:" + (flag.isEmpty()
                        ? Protocol.digest(frame) : flag), at, me, required(detail, "request_type"),
                        subType, without(rest, "request_type"));
                case "meta_event" -> new MetaEvent(bot + ":e:" + Protocol.digest(frame), at, me,
                        required(detail, "meta_event_type"), subType, without(rest, "meta_event_type"));
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
        Map<String, Object> extra = without(rest, "message_type", "message_id", "user_id", "group_id");
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

    private static Map<String, Object> without(Map<String, Object> map, String... keys) {
        for (String k : keys) {
            map.remove(k);
        }
        return map;
    }

    private static String required(@Nullable String v, String field) {
        if (v == null || v.isEmpty()) {
            throw new IllegalArgumentException("no " + field);
        }
        return v;
    }
}
