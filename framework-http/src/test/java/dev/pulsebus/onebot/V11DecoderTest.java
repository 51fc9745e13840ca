package dev.pulsebus.onebot;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pulsebus.event.GroupMessage;
import dev.pulsebus.event.NoticeEvent;
import dev.pulsebus.event.PrivateMessage;
import dev.pulsebus.event.Segment;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

class V11DecoderTest {

    private final OneBotMetrics metrics = new OneBotMetrics("11");

    private Object decode(String json) {
        return new V11Protocol().decode(Unpooled.wrappedBuffer(json.getBytes(StandardCharsets.UTF_8)), "", metrics);
    }

    @Test
    void readsAGroupMessageWithReplyMentionTextImageAndSender() {
        GroupMessage m = (GroupMessage) decode("""
                {"self_id": 10001000, "user_id": 12345678, "time": 1515204254, "message_id": -2147480000,
                 "real_id": 1, "message_type": "group", "sender": {"user_id": 12345678, "nickname": "n",
                 "card": "c", "role": "admin"}, "raw_message": "[CQ:reply,id=1]hi", "font": 14, "sub_type": "normal",
                 "message": [{"type": "reply", "data": {"id": "1"}}, {"type": "at", "data": {"qq": 10001000, "name": "b"}},
                  {"type": "text", "data": {"text": " hi"}},
                  {"data": {"file": "a.jpg", "url": "https://x/a.jpg", "file_size": "10"}, "type": "image"},
                  {"type": "forward", "data": {"id": "f1", "content": [{"x": 1}]}}],
                 "message_format": "array", "post_type": "message", "group_id": 123456}""");
        assertThat(m.id()).isEqualTo("10001000:m:-2147480000");
        assertThat(m.groupId()).isEqualTo("123456");
        assertThat(m.userId()).isEqualTo("12345678");
        assertThat(m.time().getEpochSecond()).isEqualTo(1515204254);
        assertThat(m.message().segments()).containsExactly(new Segment.Reply("1", null),
                new Segment.Mention("10001000"), new Segment.Text(" hi"), new Segment.Image("https://x/a.jpg"),
                new Segment.Other("forward", Map.of("id", "f1", "content", java.util.List.of(Map.of("x", 1L)))));
        assertThat(m.extra()).containsEntry("real_id", 1L).containsEntry("font", 14L)
                .containsEntry("message_format", "array").doesNotContainKeys("message_id", "group_id", "user_id");
        assertThat(m.extra().get("sender")).isEqualTo(Map.of("user_id", 12345678L, "nickname", "n", "card", "c",
                "role", "admin"));
    }

    @Test
    void aResponseIsReturnedAsItsTree() {
        Object r = decode("{\"status\": \"ok\", \"retcode\": 0, \"data\": {\"message_id\": 5}, \"echo\": \"7\"}");
        assertThat(r).isInstanceOf(JsonNode.class);
        assertThat(((JsonNode) r).path("data").path("message_id").asInt()).isEqualTo(5);
        assertThat(decode("{\"a\": [1,")).isSameAs(Protocol.NOT_JSON);
        assertThat(decode("[1]")).isSameAs(Protocol.NOT_JSON);
        // known a response at its retcode or echo: what follows is still read whole, and checked
        assertThat(decode("{\"echo\": \"7\", \"retcode\": 0, \"data\": {\"message_id\": 5}}")).isEqualTo(
                ((com.fasterxml.jackson.databind.node.ObjectNode) ((JsonNode) r).deepCopy()).without("status"));
        assertThat(decode("{\"retcode\": 0, \"data\": {\"message_id\": ")).isSameAs(Protocol.NOT_JSON);
        byte[] overlong = "{\"retcode\": 0, \"wording\": \"??\"}".getBytes(StandardCharsets.UTF_8);
        overlong[27] = (byte) 0xC0;
        overlong[28] = (byte) 0xAF;
        assertThat(new V11Protocol().decode(Unpooled.wrappedBuffer(overlong), "", metrics))
                .isSameAs(Protocol.NOT_UTF8);
        // an event may carry either as a field of its own
        Object beat = decode("{\"post_type\": \"meta_event\", \"meta_event_type\": \"heartbeat\", \"self_id\": 1,"
                + " \"time\": 2, \"interval\": 5000, \"echo\": \"x\", \"retcode\": 3}");
        assertThat(beat).isInstanceOf(dev.pulsebus.event.MetaEvent.class);
        assertThat(((dev.pulsebus.event.MetaEvent) beat).fields()).containsEntry("echo", "x").containsEntry("retcode", 3L);
    }

    @Test
    void theStringFormAndTheArrayFormGiveTheSameMessage() {
        PrivateMessage string = (PrivateMessage) decode("""
                {"post_type": "message", "message_type": "private", "self_id": 1, "message_id": 2, "user_id": 3,
                 "message": "[CQ:at,qq=all]a&#91;b&#93;[CQ:face,id=178]"}""");
        PrivateMessage array = (PrivateMessage) decode("""
                {"post_type": "message", "message_type": "private", "self_id": 1, "message_id": 2, "user_id": 3,
                 "message": [{"type": "at", "data": {"qq": "all"}}, {"type": "text", "data": {"text": "a[b]"}},
                  {"type": "face", "data": {"id": "178"}}]}""");
        assertThat(string.message()).isEqualTo(array.message());
    }

    @Test
    void aRetransmittedNoticeGetsTheSameIdAndNullsAreLeftOutAndCounted() {
        String frame = Fixtures.V11_NOTICES[4][2];
        NoticeEvent a = (NoticeEvent) decode(frame);
        NoticeEvent b = (NoticeEvent) decode(frame);
        assertThat(a.id()).isEqualTo(b.id()).startsWith("10001000:n:");
        assertThat(a.fields()).containsEntry("duration", 600L).doesNotContainKey("notice_type");
        NoticeEvent other = (NoticeEvent) decode(frame.replace("600", "601"));
        assertThat(other.id()).isNotEqualTo(a.id());
        NoticeEvent nulls = (NoticeEvent) decode(frame.replace("\"duration\": 600", "\"duration\": null, \"x\": [null]"));
        assertThat(nulls.fields()).doesNotContainKey("duration").containsEntry("x", java.util.List.of());
        assertThat(metrics.bad(OneBotMetrics.Bad.NULL)).isEqualTo(1);
    }

    @Test
    void whatTheRecordsCannotHoldIsCountedByReason() {
        assertThat(decode("{\"post_type\": \"message\", \"message_type\": \"group\", \"self_id\": 1}")).isNull();
        assertThat(decode("{\"post_type\": \"message\", \"self_id\": 1, \"message_id\": 1, \"user_id\": 1,"
                + " \"message_type\": \"group\", \"group_id\": 1, \"message\": [{\"type\": \"at\", \"data\": {}}]}"))
                .isNull();
        assertThat(decode("{\"post_type\": \"message_sent\", \"self_id\": 1}")).isNull();
        assertThat(decode("{\"post_type\": \"notice\", \"notice_type\": \"x\"}")).isNull();
        assertThat(metrics.bad(OneBotMetrics.Bad.INVALID)).isEqualTo(3);
        assertThat(metrics.bad(OneBotMetrics.Bad.UNKNOWN_TYPE)).isEqualTo(1);
    }

    @Test
    void idsLongerThan64CharactersOrBeyondALongAreCountedAndDropped() {
        String longId = "\"" + "7".repeat(65) + "\"";
        for (String[] ids : new String[][] {{"1", longId, "3"}, {"1", "2", longId}, {longId, "2", "3"},
                {"1", "99999999999999999999", "3"}, {"1", "2", "-99999999999999999999"}, {"1", "2.5", "3"},
                {"18446744073709551616", "2", "3"}}) {
            assertThat(decode(group(ids[0], ids[1], ids[2]))).as(String.join(", ", ids)).isNull();
        }
        assertThat(metrics.bad(OneBotMetrics.Bad.INVALID)).isEqualTo(7);
        String longest = "\"" + "7".repeat(64) + "\"";
        assertThat(decode(group(longest, longest, longest))).isInstanceOf(dev.pulsebus.event.GroupMessage.class);
        assertThat(decode(group("1", "9223372036854775807", "-9223372036854775808")))
                .isInstanceOf(dev.pulsebus.event.GroupMessage.class);
        assertThat(metrics.bad(OneBotMetrics.Bad.INVALID)).isEqualTo(7);
    }

    private static String group(String self, String user, String group) {
        return "{\"post_type\": \"message\", \"message_type\": \"group\", \"self_id\": " + self
                + ", \"message_id\": 1, \"user_id\": " + user + ", \"group_id\": " + group
                + ", \"message\": \"hi\"}";
    }
}
