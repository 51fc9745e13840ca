package dev.pulsebus.bench.adapter;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pulsebus.event.Event;
import dev.pulsebus.event.GroupMessage;
import dev.pulsebus.event.Message;
import dev.pulsebus.event.MessageEvent;
import dev.pulsebus.event.ReplyChannel;
import dev.pulsebus.event.Segment;
import dev.pulsebus.event.Self;
import dev.pulsebus.internal.Json;
import dev.pulsebus.telegram.TelegramAdapter;
import dev.pulsebus.telegram.TelegramSettings;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * {@code adapter.telegram_decode}: one Bot API {@code Update} ({@link TelegramUpdates#REPLY_WITH_ENTITIES}: a
 * supergroup message replying to another, with a command for this bot, a mention and a bold entity) to an
 * {@link Event}. Ours is the adapter's decoder, given the update in a direct buffer of Netty's default
 * (pooled) allocator, as a webhook post hands it over; the peers read the same bytes from an array, their best
 * case: {@code jackson_tree} is {@code ObjectMapper.readTree} and a hand mapping to the same record,
 * {@code jackson_tokens} Jackson's streaming parser walking every token and keeping nothing. Our event builds
 * its {@code extra} (the message's fields) at their first read, which the pipeline never makes:
 * {@code adapter.telegram_decode_extra} is the same update with its {@code extra} read, beside the tree's.
 */
@State(Scope.Thread)
public class TelegramDecodeBench {

    private final byte[] bytes = TelegramUpdates.REPLY_WITH_ENTITIES.getBytes(StandardCharsets.UTF_8);
    private TelegramAdapter adapter;
    private ByteBuf update;

    @Setup(Level.Trial)
    public void setUp() {
        adapter = TelegramAdapter.create(TelegramSettings.polling("http://127.0.0.1:9", TelegramUpdates.TOKEN), null,
                null);
        update = ByteBufAllocator.DEFAULT.directBuffer(bytes.length).writeBytes(bytes);
        if (!(telegram_decode__pulsebus() instanceof GroupMessage ours) || !ours.equals(telegram_decode__jackson_tree())) {
            throw new IllegalStateException("the decoder and the hand mapping disagree on "
                    + TelegramUpdates.REPLY_WITH_ENTITIES + ": " + telegram_decode__pulsebus() + " vs "
                    + telegram_decode__jackson_tree());
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        update.release();
    }

    @Benchmark
    public Event telegram_decode__pulsebus() {
        return adapter.decode(update, TelegramUpdates.BOT_ID, TelegramUpdates.USERNAME);
    }

    @Benchmark
    public Event telegram_decode__jackson_tree() {
        try {
            return map(Json.MAPPER.readTree(bytes));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The decode row's event with its {@code extra} read: ours builds it at that first read. */
    @Benchmark
    public int telegram_decode_extra__pulsebus() {
        return ((MessageEvent) telegram_decode__pulsebus()).extra().size();
    }

    /** The tree's event, whose {@code extra} is built with it, read as ours is. */
    @Benchmark
    public int telegram_decode_extra__jackson_tree() {
        return ((MessageEvent) telegram_decode__jackson_tree()).extra().size();
    }

    @Benchmark
    public int telegram_decode__jackson_tokens() {
        return DecodeBench.tokens(bytes);
    }

    /**
     * The hand mapping of this update's tree onto the record the decoder makes: a reply segment, the command
     * with this bot's suffix cut, the mention, the rest of the text; the message's fields as {@code extra}.
     */
    private static GroupMessage map(JsonNode update) {
        JsonNode m = update.get("message");
        String bot = TelegramUpdates.BOT_ID;
        List<Segment> segments = new ArrayList<>();
        JsonNode reply = m.get("reply_to_message");
        segments.add(new Segment.Reply(reply.get("message_id").asText(), reply.get("from").get("id").asText()));
        String text = m.get("text").asText();
        StringBuilder plain = new StringBuilder();
        int pos = 0;
        for (JsonNode e : m.get("entities")) {
            int off = e.get("offset").asInt();
            int end = off + e.get("length").asInt();
            switch (e.get("type").asText()) {
                case "bot_command" -> {
                    int at = text.indexOf('@', off);
                    plain.append(text, pos, at >= 0 && at < end ? at : end);
                    pos = end;
                }
                case "mention" -> {
                    plain.append(text, pos, off);
                    segments.add(new Segment.Text(plain.toString()));
                    plain.setLength(0);
                    segments.add(new Segment.Mention(text.substring(off + 1, end)));
                    pos = end;
                }
                default -> { }
            }
        }
        plain.append(text, pos, text.length());
        segments.add(new Segment.Text(plain.toString()));
        Map<String, Object> extra = DecodeBench.fields(m); // the OneBot row's mapping of fields
        extra.put("update_type", "message");
        String chat = m.get("chat").get("id").asText();
        return new GroupMessage("tg:" + bot + ":" + update.get("update_id").asLong(),
                Instant.ofEpochSecond(m.get("date").asLong()), new Self("telegram", bot), "",
                m.get("message_id").asText(), new Message(segments), m.get("from").get("id").asText(), chat,
                ReplyChannel.UNBOUND, extra);
    }
}
