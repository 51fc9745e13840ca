package dev.pulsebus.onebot;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.BufferRecycler;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulsebus.event.Event;
import dev.pulsebus.event.MetaEvent;
import dev.pulsebus.internal.Json;
import dev.pulsebus.internal.JsonStreaming;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.nio.charset.StandardCharsets;
import java.io.IOException;
import dev.pulsebus.pipeline.OutboundMessage;
import org.jspecify.annotations.Nullable;

/**
 * What differs between OneBot v11 and v12 on the wire: reading an event, telling a response from an event,
 * the action that sends a message, and how actions are framed. One instance per version; stateless.
 */
abstract sealed class Protocol permits V11Protocol, V12Protocol {

    /**
     * An action to send: its name and parameters, a tree for most actions; a send's are written straight into
     * its frame, with no tree (its {@link #params} tree is read from what it writes, for the few who need one).
     */
    abstract static class Action {
        private final String name;

        Action(String name) {
            this.name = name;
        }

        /** An action with the parameters {@code params}. */
        static Action of(String name, ObjectNode params) {
            return new Action(name) {
                @Override
                ObjectNode params() {
                    return params;
                }

                @Override
                void writeParams(JsonGenerator g) throws IOException {
                    Json.MAPPER.writeTree(g, params);
                }
            };
        }

        final String name() {
            return name;
        }

        /** Its parameters as a tree. */
        ObjectNode params() {
            try {
                return (ObjectNode) Json.MAPPER.readTree(paramsJson());
            } catch (IOException e) {
                throw new IllegalStateException("cannot read the parameters of " + name + " back", e);
            }
        }

        /** Its parameters as JSON. */
        final byte[] paramsJson() throws IOException {
            return written(this, null, null, "", null);
        }

        /** Writes its parameters, an object, into {@code g}. */
        abstract void writeParams(JsonGenerator g) throws IOException;
    }

    /** What {@link #decode} returns for a frame that is not a JSON object (to be counted by the caller). */
    static final Object NOT_JSON = new Object();
    /** What {@link #decode} returns for a frame that is not UTF-8 (RFC 6455 fails such a WebSocket with 1007). */
    static final Object NOT_UTF8 = new Object();
    /** What {@link V11Decoder} returns for an object that is no event: read again as a tree, a response. */
    static final Object RESPONSE = new Object();

    final int version;
    final String label;
    final String platform;

    Protocol(int version) {
        this.version = version;
        this.label = Integer.toString(version);
        this.platform = "onebot" + version;
    }

    static Protocol of(int version) {
        return version == 11 ? new V11Protocol() : new V12Protocol();
    }

    /**
     * What {@code frame} holds: an {@link Event}, a response to an action (its {@link JsonNode}), {@link #NOT_JSON},
     * {@link #NOT_UTF8}, or null for an event the records cannot hold (counted in {@code metrics}). {@code selfHint}: the bot the
     * connection or request named ({@code X-Self-ID}), for frames that name none.
     */
    abstract @Nullable Object decode(ByteBuf frame, String selfHint, OneBotMetrics metrics);

    /** {@code frame} as a JSON object, or null when it is none. */
    static @Nullable JsonNode tree(ByteBuf frame) {
        return JsonTree.object(frame);
    }

    /**
     * Why {@code frame} could not be read: {@link #NOT_UTF8} when its bytes are not UTF-8 (checked strictly: no
     * overlong form, no surrogate, nothing past U+10FFFF), else {@link #NOT_JSON}. A pass over the frame, made
     * only once it failed to read.
     */
    static Object unreadable(ByteBuf frame) {
        return ByteBufUtil.isText(frame, StandardCharsets.UTF_8) ? NOT_JSON : NOT_UTF8;
    }

    /** The bot's own chat platform (v12's {@code self.platform}, kept as the field {@code platform}), else null. */
    static @Nullable String botPlatform(Event event) {
        Object p = switch (event) {
            case dev.pulsebus.event.MessageEvent m -> m.extra().get("platform");
            case dev.pulsebus.event.NoticeEvent n -> n.fields().get("platform");
            case dev.pulsebus.event.RequestEvent r -> r.fields().get("platform");
            case MetaEvent m -> m.fields().get("platform");
        };
        return p instanceof String s ? s : null;
    }

    /** The action that sends {@code message}; throws IllegalArgumentException for a chat this version has not. */
    abstract Action send(OutboundMessage message);

    /** A message id in a send action's response data. */
    final String messageId(JsonNode data) {
        return JsonValues.id(data, "message_id");
    }

    /**
     * The frame of {@code action}: {@code action}, {@code params}, then {@code echo} unless it is null (v12's HTTP
     * API takes none); {@code botPlatform} (v12) names the bot in {@code self}.
     */
    final byte[] frame(Action action, @Nullable String echo, String selfId, @Nullable String botPlatform)
            throws IOException {
        return written(action, this, echo, selfId, botPlatform);
    }

    /**
     * {@code action}'s frame as {@code protocol} writes it, or its parameters alone when {@code protocol} is null,
     * made on a buffer borrowed from the shared pool: only the bytes returned are allocated (no lambda either).
     */
    private static byte[] written(Action action, @Nullable Protocol protocol, @Nullable String echo, String selfId,
                                  @Nullable String botPlatform) throws IOException {
        BufferRecycler buffers = JsonStreaming.FACTORY._getBufferRecycler();
        try {
            ByteArrayBuilder out = new ByteArrayBuilder(buffers);
            try (JsonGenerator g = JsonStreaming.FACTORY.createGenerator(out)) {
                if (protocol == null) {
                    action.writeParams(g);
                } else {
                    g.writeStartObject();
                    g.writeStringField("action", action.name());
                    g.writeFieldName("params");
                    action.writeParams(g);
                    if (echo != null) {
                        g.writeStringField("echo", echo);
                    }
                    protocol.writeSelf(g, selfId, botPlatform);
                    g.writeEndObject();
                }
            }
            return out.getClearAndRelease();
        } finally {
            buffers.releaseToPool();
        }
    }

    /** Writes the frame's field naming the bot, where the version has one (v12's {@code self}). */
    void writeSelf(JsonGenerator g, String selfId, @Nullable String botPlatform) throws IOException {
    }

    /** Puts an id parameter: v11 ids are numbers when they are digits, v12 ids are strings. */
    abstract void putId(ObjectNode params, String key, String id);

    /** The interval of a heartbeat event in ms, or -1 when {@code event} is none. */
    static long heartbeatInterval(Event event) {
        if (event instanceof MetaEvent m && m.detailType().equals("heartbeat")
                && m.fields().get("interval") instanceof Long ms && ms > 0) {
            return ms;
        }
        return -1;
    }

    /** Field {@code field} of {@code f} as an id; throws IllegalArgumentException when it is absent. */
    static String required(JsonNode f, String field) {
        String v = JsonValues.id(f, field);
        if (v.isEmpty()) {
            throw new IllegalArgumentException("no " + field);
        }
        return v;
    }

    /** {@code event}, after counting the nulls left out of it (the event goes on without them). */
    static @Nullable Event counted(@Nullable Event event, JsonValues values, OneBotMetrics metrics) {
        if (event != null && values.nulls > 0) {
            metrics.bad(OneBotMetrics.Bad.NULL, values.nulls + " null value(s) left out, the first at "
                    + values.firstNull + " (the event goes on)");
        }
        return event;
    }

    /** A 64-bit FNV-1a digest of {@code frame}'s bytes in hex: the id of v11 events that carry none. */
    static String digest(ByteBuf frame) {
        long h = 0xcbf29ce484222325L;
        for (int i = frame.readerIndex(), end = frame.writerIndex(); i < end; i++) {
            h ^= frame.getByte(i) & 0xff;
            h *= 0x100000001b3L;
        }
        return Long.toHexString(h);
    }
}
