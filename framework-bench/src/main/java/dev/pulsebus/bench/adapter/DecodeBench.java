package dev.pulsebus.bench.adapter;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import dev.pulsebus.event.Event;
import dev.pulsebus.event.GroupMessage;
import dev.pulsebus.event.Message;
import dev.pulsebus.event.Segment;
import dev.pulsebus.event.Self;
import dev.pulsebus.internal.Json;
import dev.pulsebus.onebot.Mode;
import dev.pulsebus.onebot.OneBotAdapter;
import dev.pulsebus.onebot.OneBotSettings;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * {@code adapter.onebot11_decode}: one v11 group message frame ({@link V11Frames#GROUP_MESSAGE}) to an
 * {@link Event}. Ours is the adapter's own decoder, given the frame in a direct buffer of Netty's default
 * (pooled) allocator, as a connection hands it over; the peers read the same bytes from an array, their best
 * case: {@code jackson_tree} is {@code ObjectMapper.readTree} and a hand mapping to the same record,
 * {@code jackson_tokens} Jackson's streaming parser walking every token and keeping nothing, the limit of
 * any decoder built on Jackson.
 */
@State(Scope.Thread)
public class DecodeBench {

    private static final JsonFactory JSON = Json.MAPPER.getFactory();

    private final byte[] bytes = V11Frames.GROUP_MESSAGE.getBytes(StandardCharsets.UTF_8);
    private OneBotAdapter adapter;
    private ByteBuf frame;

    @Setup(Level.Trial)
    public void setUp() {
        adapter = OneBotAdapter.create(OneBotSettings.of(11, Mode.REVERSE_WS, ""), null);
        frame = ByteBufAllocator.DEFAULT.directBuffer(bytes.length).writeBytes(bytes);
        if (!(onebot11_decode__pulsebus() instanceof GroupMessage ours) || !ours.equals(onebot11_decode__jackson_tree())) {
            throw new IllegalStateException("the decoder and the hand mapping disagree on " + V11Frames.GROUP_MESSAGE);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        frame.release();
    }

    @Benchmark
    public Event onebot11_decode__pulsebus() {
        return adapter.decode(frame, "");
    }

    @Benchmark
    public Event onebot11_decode__jackson_tree() {
        try {
            return map(Json.MAPPER.readTree(bytes));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Benchmark
    public int onebot11_decode__jackson_tokens() {
        return tokens(bytes);
    }

    /** Jackson's streaming parser walking every token of {@code bytes}, keeping nothing (also the Telegram row's peer). */
    static int tokens(byte[] bytes) {
        int tokens = 0;
        try (JsonParser p = JSON.createParser(bytes)) {
            while (p.nextToken() != null) {
                tokens++;
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return tokens;
    }

    /** The hand mapping of a v11 group message tree onto the record the decoder makes. */
    private static GroupMessage map(JsonNode n) {
        String self = n.get("self_id").asText();
        String messageId = n.get("message_id").asText();
        List<Segment> segments = new ArrayList<>();
        for (JsonNode seg : n.get("message")) {
            JsonNode data = seg.get("data");
            segments.add(switch (seg.get("type").asText()) {
                case "text" -> new Segment.Text(data.get("text").asText());
                case "at" -> data.get("qq").asText().equals("all")
                        ? new Segment.MentionAll() : new Segment.Mention(data.get("qq").asText());
                case "reply" -> new Segment.Reply(data.get("id").asText(), null);
                case "image" -> new Segment.Image(data.has("url") ? data.get("url").asText() : data.get("file").asText());
                default -> new Segment.Other(seg.get("type").asText(), fields(data));
            });
        }
        Map<String, Object> extra = new HashMap<>();
        for (Map.Entry<String, JsonNode> f : n.properties()) {
            switch (f.getKey()) {
                case "time", "self_id", "post_type", "sub_type", "message", "message_type", "message_id", "user_id",
                        "group_id" -> { }
                default -> {
                    if (!f.getValue().isNull()) {
                        extra.put(f.getKey(), value(f.getValue()));
                    }
                }
            }
        }
        return new GroupMessage(self + ":m:" + messageId, Instant.ofEpochSecond(n.get("time").asLong()),
                new Self("onebot11", self), n.get("sub_type").asText(), messageId, new Message(segments),
                n.get("user_id").asText(), n.get("group_id").asText(), null, extra);
    }

    private static Object value(JsonNode v) {
        if (v.isTextual()) {
            return v.textValue();
        }
        if (v.isIntegralNumber()) {
            return v.longValue();
        }
        if (v.isNumber()) {
            return v.doubleValue();
        }
        if (v.isBoolean()) {
            return v.booleanValue();
        }
        if (v.isArray()) {
            List<Object> list = new ArrayList<>(v.size());
            for (JsonNode e : v) {
                if (!e.isNull()) {
                    list.add(value(e));
                }
            }
            return Collections.unmodifiableList(list);
        }
        return Collections.unmodifiableMap(fields(v));
    }

    /** {@code object}'s fields as plain values in a new HashMap, nulls left out (also the Telegram row's peer). */
    static Map<String, Object> fields(JsonNode object) {
        Map<String, Object> map = new HashMap<>();
        for (Map.Entry<String, JsonNode> f : object.properties()) {
            if (!f.getValue().isNull()) {
                map.put(f.getKey(), value(f.getValue()));
            }
        }
        return map;
    }
}
