package dev.pulsebus.onebot;

import static dev.pulsebus.adapter.JsonBytes.ARRAY;
import static dev.pulsebus.adapter.JsonBytes.DECIMAL;
import static dev.pulsebus.adapter.JsonBytes.FALSE;
import static dev.pulsebus.adapter.JsonBytes.INTEGER;
import static dev.pulsebus.adapter.JsonBytes.OBJECT;
import static dev.pulsebus.adapter.JsonBytes.STRING;
import static dev.pulsebus.adapter.JsonBytes.TRUE;

import dev.pulsebus.adapter.FieldReader;
import dev.pulsebus.adapter.JsonBytes;
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
import io.netty.buffer.ByteBuf;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Reads a v11 event straight from its bytes ({@link JsonBytes}), without the tree a {@code readTree} builds
 * and then walks, and without Jackson decoding every string it is asked for: the fields the records hold go
 * to locals, segments are made as they are read (a {@code text}, {@code at}, {@code reply} or {@code image}
 * segment whose {@code type} comes first without a map), and only the fields kept in {@code extra} or
 * {@code fields} become Java values ({@link FieldReader}, nulls left out and counted with their path).
 * This is the adapter's hot path: one per inbound frame, on the I/O thread, so it allocates little beyond
 * what the event keeps: one decoder per thread is reused frame after frame (its maps are built on a stack of
 * keys and values and copied out at their exact size as {@link FieldMap}s, its keys found again among those
 * read before), values the spec enumerates (types, {@code sender.sex}, {@code sender.role}) are shared
 * constants compared on the bytes, and an image's {@code file} becomes a string only when it has no
 * {@code url}. Not thread-safe; each thread has its own.
 */
final class V11Decoder {

    /** The keys this decoder switches on come back as these literals, found by identity. */
    private final JsonBytes json = new JsonBytes().names("time", "self_id", "post_type", "sub_type", "message",
            "notice_type", "request_type", "meta_event_type", "message_type", "message_id", "user_id", "group_id",
            "flag", "type", "data", "text", "qq", "id", "file", "url", "retcode", "echo");
    private final JsonValues nulls = new JsonValues();
    /** Reads the values of the frame's fields, its nulls counted ({@link #nullAt}). */
    private final FieldReader values = new FieldReader(this::nullAt, ENUMERATED);
    /** Whether {@link #values} is reading a segment's data, whose null paths start at {@code message.}. */
    private boolean inSegment;
    private @Nullable String postType;
    /** A response's field came before any {@code post_type}: the rest is left to be read as a tree. */
    private boolean response;
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
     * The kinds ({@link JsonBytes#lastKind()}) of {@code message_type}, {@code message_id}, {@code user_id} and
     * {@code group_id} (0 when absent), read into their record components: they are also fields of the other
     * events, made there as values from the text, but a message, whose record holds them, gets no second copy.
     */
    private int messageTypeKind;
    private int messageIdKind;
    private int userIdKind;
    /** The kind of {@code self_id} (0 when absent). */
    private int selfKind;
    private int groupIdKind;
    /** The keys and values of the frame's own fields, copied out at their exact size ({@link FieldMap#copyOf}). */
    private Object[] stack = new Object[64];
    private int top;
    /** The frame's own fields once past {@link FieldMap#MAX_SCANNED} keys (then no longer on the stack). */
    private @Nullable Map<String, Object> restSpilled;
    /** The segments of the message being read. */
    private Segment[] segments = new Segment[8];
    /** The bot of the last frame read on this thread, reused while frames name the same bot. */
    private @Nullable Self lastSelf;

    /** Values the spec gives these fields, returned as these constants instead of made again per frame. */
    private static final JsonBytes.Known POST_TYPES = JsonBytes.known("message", "notice", "request", "meta_event");
    private static final JsonBytes.Known MESSAGE_TYPES = JsonBytes.known("group", "private");
    private static final JsonBytes.Known SUB_TYPES = JsonBytes.known("normal", "friend", "group", "anonymous", "notice",
        "other", "", "connect", "enable", "disable", "set", "unset", "approve", "invite", "kick", "kick_me", "leave",
        "ban", "lift_ban", "poke", "lucky_king", "honor", "add");
    /** The values of v11's enumerated object fields ({@code sender.sex}, {@code sender.role}, {@code message_format}) and "". */
    private static final String[] ENUMERATED = {"", "male", "female", "unknown", "member", "admin", "owner", "array",
        "string"};
    private static final JsonBytes.Known SEGMENT_TYPES = JsonBytes.known("text", "at", "reply", "image", "face",
        "record", "video", "forward", "json", "xml");

    /** Makes each meta event's id its own (see {@link #event}). */
    private static final java.util.concurrent.atomic.AtomicLong META_SEQ = new java.util.concurrent.atomic.AtomicLong();
    /** One per thread, reused frame after frame: what it holds between frames is cleared first. */
    private static final ThreadLocal<V11Decoder> DECODERS = ThreadLocal.withInitial(V11Decoder::new);

    private V11Decoder() {
    }

    private void reset() {
        nulls.nulls = 0;
        nulls.firstNull = "";
        postType = null;
        response = false;
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
        messageTypeKind = 0;
        messageIdKind = 0;
        userIdKind = 0;
        groupIdKind = 0;
        selfKind = 0;
        Arrays.fill(stack, 0, top, null);
        top = 0;
        restSpilled = null;
        values.reset();
        inSegment = false;
    }

    /**
     * The event in {@code frame}: an {@link Event}, {@link Protocol#RESPONSE} when the frame is an object but
     * no event (no {@code post_type}, or a {@code retcode} or {@code echo} before it: an action's response, read
     * as a tree by the caller; what follows those is not read here, nor checked),
     * {@link Protocol#NOT_JSON}, or null when it is an event the records cannot hold (counted).
     */
    static @Nullable Object decode(ByteBuf frame, String selfHint, String platform, OneBotMetrics metrics) {
        V11Decoder d = DECODERS.get();
        d.reset();
        JsonBytes j = d.json.reset(frame);
        try {
            if (j.kind() != OBJECT) {
                return Protocol.unreadable(frame);
            }
            d.readFields(j);
            if (d.response) {
                return Protocol.RESPONSE;
            }
            j.finish();
        } catch (JsonBytes.MalformedException e) {
            // a whole document read is UTF-8 (JsonBytes checks it strictly); one that is not may be both
            return Protocol.unreadable(frame);
        } catch (IllegalArgumentException | NullPointerException e) {
            if (Protocol.unreadable(frame) == Protocol.NOT_UTF8) { // not read to its end
                return Protocol.NOT_UTF8;
            }
            metrics.bad(OneBotMetrics.Bad.INVALID, "a " + d.postType + " event: " + e.getMessage());
            return null;
        }
        if (d.postType == null) {
            return Protocol.RESPONSE;
        }
        return d.event(selfHint, platform, metrics, frame);
    }

    private void readFields(JsonBytes j) throws JsonBytes.MalformedException {
        if (!j.beginObject()) {
            return;
        }
        do {
            String name = j.name();
            if (j.nullValue()) {
                if (!JsonValues.nullable(name)) {
                    nulls.nullAt(name);
                }
                continue;
            }
            int kind = j.kind();
            switch (name) {
                case "post_type" -> postType = j.string(POST_TYPES);
                case "retcode", "echo" -> {
                    if (postType == null) { // no event has these: a response, read once, as a tree
                        response = true;
                        return;
                    }
                    putField(name, values.value(j, name));
                }
                case "sub_type" -> subType = j.string(SUB_TYPES);
                case "time" -> time = j.longValue(0);
                case "self_id" -> {
                    self = lastSelf != null ? j.text(lastSelf.userId()) : j.text();
                    selfKind = j.lastKind();
                }
                case "message" -> message = kind == STRING
                        ? V11Segments.read(CqCode.parse(j.string()), nulls) : segments(j, kind);
                case "notice_type", "request_type", "meta_event_type" -> {
                    detail = j.text();
                    detailKey = name;
                }
                case "message_type", "message_id", "user_id", "group_id" -> {
                    if (kind == OBJECT || kind == ARRAY) {
                        putField(name, values.value(j, name)); // kept as it came; the record's component stays empty
                        continue;
                    }
                    switch (name) {
                        case "message_type" -> {
                            messageType = j.string(MESSAGE_TYPES);
                            messageTypeKind = j.lastKind();
                        }
                        case "message_id" -> {
                            messageId = j.text();
                            messageIdKind = j.lastKind();
                        }
                        case "user_id" -> {
                            userId = j.text();
                            userIdKind = j.lastKind();
                        }
                        default -> {
                            groupId = j.text();
                            groupIdKind = j.lastKind();
                        }
                    }
                }
                case "flag" -> {
                    Object v = values.value(j, name);
                    flag = v instanceof String f ? f : kind == OBJECT || kind == ARRAY ? "" : String.valueOf(v);
                    putField(name, v);
                }
                default -> putField(name, values.value(j, name));
            }
        } while (j.nextField());
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
     * Puts {@code key} in the map on the stack from {@code base} (a key given again is resolved when the map
     * is copied out, its last value kept); past {@link FieldMap#MAX_SCANNED} fields, the map moved into the
     * LinkedHashMap returned (else null).
     */
    private @Nullable Map<String, Object> put(int base, String key, Object value) {
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

    /** The id fields of a frame that is not a message, as {@link FieldReader#value(JsonBytes, String)} makes them. */
    private void restoreIds() {
        restore("message_type", messageTypeKind, messageType);
        restore("message_id", messageIdKind, messageId);
        restore("user_id", userIdKind, userId);
        restore("group_id", groupIdKind, groupId);
    }

    private void restore(String key, int kind, String text) {
        if (kind != 0) {
            putField(key, switch (kind) {
                case INTEGER -> integer(text);
                case DECIMAL -> Double.parseDouble(text);
                case TRUE -> true;
                case FALSE -> false;
                default -> text;
            });
        }
    }

    private static Object integer(String digits) {
        try {
            return Long.parseLong(digits);
        } catch (NumberFormatException e) {
            return new java.math.BigInteger(digits); // past a long, as JsonBytes#number
        }
    }

    /** A null {@link #values} left out: counted unless the spec allows it ({@link JsonValues#nullable}). */
    private void nullAt(@Nullable String key, String path) {
        if (key == null || !JsonValues.nullable(key)) {
            nulls.nullAt(inSegment ? "message." + path : path);
        }
    }

    /** The array form, segment by segment (the mapping of {@link V11Segments}). */
    private Message segments(JsonBytes j, int kind) throws JsonBytes.MalformedException {
        if (kind != ARRAY) {
            throw new IllegalArgumentException("message is neither a segment array nor a string");
        }
        int n = 0;
        if (j.beginArray()) {
            do {
                if (j.kind() != OBJECT) {
                    throw new IllegalArgumentException("a message segment is not an object");
                }
                Segment segment = segment(j);
                if (n == segments.length) {
                    segments = Arrays.copyOf(segments, n * 2);
                }
                segments[n++] = segment;
            } while (j.nextElement());
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

    private Segment segment(JsonBytes j) throws JsonBytes.MalformedException {
        String type = "";
        Map<String, Object> data = null;
        Segment known = null;
        if (j.beginObject()) {
            do {
                if (j.nullValue()) {
                    continue;
                }
                if (j.nameIs("type")) {
                    type = j.string(SEGMENT_TYPES);
                } else if (j.nameIs("data") && j.kind() == OBJECT) {
                    if (isRead(type)) {
                        known = known(j, type);
                    } else {
                        inSegment = true;
                        data = values.object(j, type.isEmpty() ? "?" : type);
                        inSegment = false;
                    }
                } else {
                    j.skip();
                }
            } while (j.nextField());
        }
        if (known != null) {
            return known;
        }
        return V11Segments.segment(type, data == null ? Map.of() : data);
    }

    /** The types whose data {@link #known} reads into the record. */
    private static boolean isRead(String type) {
        return type.equals("text") || type.equals("at") || type.equals("reply") || type.equals("image");
    }

    /**
     * The data of a {@code text}, {@code at}, {@code reply} or {@code image} segment read into its record
     * (an IllegalArgumentException when it has not what the record needs), the data read to its end.
     */
    private Segment known(JsonBytes j, String type) throws JsonBytes.MalformedException {
        String main = null;
        String url = null;
        int file = -1;
        boolean image = type.equals("image");
        String wanted = V11Segments.mainKey(type);
        if (j.beginObject()) {
            do {
                String key = j.name();
                if (j.nullValue()) {
                    nulls.nullAt("message." + type + "." + key);
                    continue;
                }
                int kind = j.kind();
                if (kind == OBJECT || kind == ARRAY) {
                    j.skip();
                } else if (image && key.equals("file")) {
                    file = j.position(); // made a string only if no url comes
                    j.skip();
                } else if (key.equals(wanted)) {
                    main = type.equals("at") ? j.text(self) : j.text(); // a mention of the bot: its id again
                } else if (image && key.equals("url")) {
                    url = j.text();
                } else {
                    j.skip();
                }
            } while (j.nextField());
        }
        if (file >= 0) {
            main = url != null && !url.isEmpty() ? "" : j.textAt(file);
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
        String badId = badId("self_id", self, selfKind);
        if (badId != null) {
            metrics.bad(OneBotMetrics.Bad.INVALID, "a " + postType + " event: " + badId);
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
                // a meta event is the connection's state, never a repeat: two lifecycle connects of a quick
                // reconnect are the same bytes within one second, and both happened
                case "meta_event" -> new MetaEvent(bot + ":e:" + Protocol.digest(frame) + ":"
                        + Long.toString(META_SEQ.incrementAndGet(), 36), at, me,
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
        String badId = badId("user_id", userId, userIdKind);
        if (badId == null && messageType.equals("group")) {
            badId = badId("group_id", groupId, groupIdKind);
        }
        if (badId != null) {
            throw new IllegalArgumentException(badId);
        }
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

    /**
     * What is wrong with id {@code value} of JSON kind {@code kind}, or null: an id is at most
     * {@value Event#MAX_ID_LENGTH} characters, and one given as a number is an integer within a {@code long}.
     */
    static @Nullable String badId(String field, String value, int kind) {
        if (value.length() > Event.MAX_ID_LENGTH) {
            return field + " is " + value.length() + " characters long, more than " + Event.MAX_ID_LENGTH;
        }
        if (kind == DECIMAL || (kind == INTEGER && !fitsLong(value))) {
            return field + " " + value + " is not an integer within 64 bits";
        }
        return null;
    }

    private static boolean fitsLong(String digits) {
        try {
            Long.parseLong(digits);
            return true;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    private static String required(@Nullable String v, String field) {
        if (v == null || v.isEmpty()) {
            throw new IllegalArgumentException("no " + field);
        }
        return v;
    }
}
