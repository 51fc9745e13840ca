package dev.pulsebus.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pulsebus.event.ChannelMessage;
import dev.pulsebus.event.Event;
import dev.pulsebus.event.GroupMessage;
import dev.pulsebus.event.Message;
import dev.pulsebus.event.MetaEvent;
import dev.pulsebus.event.NoticeEvent;
import dev.pulsebus.event.PrivateMessage;
import dev.pulsebus.event.ReplyChannel;
import dev.pulsebus.event.RequestEvent;
import dev.pulsebus.event.Segment;
import dev.pulsebus.event.Self;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EventCodecTest {

    private static final Instant TIME = Instant.parse("2026-12-02T09:00:00.123456789Z");
    private static final Self SELF = new Self("qq", "10001");
    private static final Message EVERY_SEGMENT = new Message(List.of(new Segment.Text("hi "), new Segment.Mention("42"),
            new Segment.MentionAll(), new Segment.Image("AgAD-file"), new Segment.Reply("77", "43"),
            new Segment.Other("face", Map.of("id", "14")), new Segment.Other("json", Map.of("data", "{\"a\":[1]}"))));
    /** Platform fields as decoders keep them: nested maps and lists, text, whole numbers as Long, booleans. */
    private static final Map<String, Object> EXTRA = Map.of("raw_message", "hi [CQ:at,qq=42]",
            "sender", Map.of("nickname", "Ann", "card", "", "role", "admin", "user_id", 12345678L), "font", 0L,
            "anonymous", false, "list", List.of("a", "b"), "big", 4_000_000_000L, "ratio", 0.5);

    private static Event roundTrip(Event e) {
        return EventCodec.decode(EventCodec.encode(e));
    }

    @Test
    void messagesComeBackEqualWithEverySegmentAndTheirPlatformFields() {
        List<Event> events = List.of(
                new GroupMessage("e1", TIME, SELF, "normal", "m1", EVERY_SEGMENT, "42", "9000", null, EXTRA),
                new PrivateMessage("e2", TIME, SELF, "friend", "m2", Message.text("/echo hi"), "42", null, EXTRA),
                new ChannelMessage("e3", TIME, new Self("qqguild", "b"), "", "m3", Message.text("x"), "42", "g1", "c1",
                        null, Map.of()));
        for (Event e : events) {
            assertThat(roundTrip(e)).as(e.getClass().getSimpleName()).isEqualTo(e);
        }
    }

    @Test
    void noticesRequestsAndMetaEventsComeBackEqual() {
        Map<String, Object> fields = Map.of("group_id", "9000", "operator_id", "1", "duration", 600L,
                "file", Map.of("name", "a.txt", "size", 1024L, "busid", 102L));
        for (Event e : List.of(new NoticeEvent("n1", TIME, SELF, "group_ban", "ban", fields),
                new RequestEvent("r1", TIME, SELF, "friend", "", Map.of("user_id", "5", "comment", "hi", "flag", "f")),
                new MetaEvent("h1", TIME, SELF, "heartbeat", "", Map.of("interval", 5000L,
                        "status", Map.of("online", true, "good", true))))) {
            assertThat(roundTrip(e)).as(e.getClass().getSimpleName()).isEqualTo(e);
        }
    }

    @Test
    void theReplyChannelIsNotCarriedTheReceivingPipelineBindsItsOwn() {
        ReplyChannel bound = new ReplyChannel() {
            @Override
            public java.util.concurrent.CompletionStage<String> reply(dev.pulsebus.event.MessageEvent to,
                                                                      Message message) {
                return java.util.concurrent.CompletableFuture.completedFuture("x");
            }
        };
        GroupMessage g = new GroupMessage("e1", TIME, SELF, "", "m1", Message.text("a"), "42", "9000", bound);
        assertThat(((GroupMessage) roundTrip(g)).replyChannel()).isSameAs(ReplyChannel.UNBOUND);
    }

    @Test
    void bytesThatAreNotAnEventAreRefusedSayingWhy() {
        assertThatThrownBy(() -> EventCodec.decode("not json".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not an event");
        assertThatThrownBy(() -> EventCodec.decode("{\"type\":\"message\"}".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("without id");
        byte[] odd = new String(EventCodec.encode(new NoticeEvent("n", TIME, SELF, "x", "", Map.of())),
                StandardCharsets.UTF_8).replace("\"notice\"", "\"other\"").getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> EventCodec.decode(odd)).hasMessageContaining("unknown type");
    }
}
