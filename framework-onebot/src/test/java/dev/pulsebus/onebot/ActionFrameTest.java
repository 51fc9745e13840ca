package dev.pulsebus.onebot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pulsebus.event.ChatRef;
import dev.pulsebus.event.Message;
import dev.pulsebus.event.Segment;
import dev.pulsebus.event.Self;
import dev.pulsebus.internal.Json;
import dev.pulsebus.pipeline.OutboundMessage;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Actions as they go out: a v11 send written straight into its frame, any other from its tree, v12 naming its bot. */
class ActionFrameTest {

    private static final Self BOT = new Self("onebot11", "10001");

    @Test
    void aV11GroupReplyIsWrittenAsTheSpecsArrayFormWithANumericIdAndTheEchoLast() throws Exception {
        Protocol v11 = Protocol.of(11);
        Protocol.Action send = v11.send(new OutboundMessage(BOT, ChatRef.group("onebot11", "123456"),
                Message.of(new Segment.Text("hi \"you\"\n"), new Segment.Mention("42"), new Segment.MentionAll(),
                        new Segment.Image("http://x/a.jpg")), "77"));
        assertThat(send.name()).isEqualTo("send_group_msg");
        assertThat(frame(v11, send, "9")).isEqualTo("{\"action\":\"send_group_msg\",\"params\":{\"group_id\":123456,"
                + "\"message\":[{\"type\":\"reply\",\"data\":{\"id\":\"77\"}},{\"type\":\"text\",\"data\":{\"text\":"
                + "\"hi \\\"you\\\"\\n\"}},{\"type\":\"at\",\"data\":{\"qq\":\"42\"}},{\"type\":\"at\",\"data\":{\"qq\":"
                + "\"all\"}},{\"type\":\"image\",\"data\":{\"file\":\"http://x/a.jpg\"}}]},\"echo\":\"9\"}");
    }

    @Test
    void aV11PrivateSendKeepsAnIdThatIsNoNumberAsAStringAndOtherSegmentsWithTheirData() throws Exception {
        Protocol v11 = Protocol.of(11);
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("id", 14);
        data.put("list", List.of("a", true));
        Protocol.Action send = v11.send(new OutboundMessage(BOT, ChatRef.privateChat("onebot11", "u-1"),
                Message.of(new Segment.Other("face", data)), null));
        assertThat(send.name()).isEqualTo("send_private_msg");
        // a segment's data keeps no order of its own (Segment.Other copies it): compared as trees
        assertThat(Json.MAPPER.readTree(frame(v11, send, "1"))).isEqualTo(Json.MAPPER.readTree("{\"action\":"
                + "\"send_private_msg\",\"params\":{\"user_id\":\"u-1\",\"message\":[{\"type\":\"face\",\"data\":"
                + "{\"id\":14,\"list\":[\"a\",true]}}]},\"echo\":\"1\"}"));
        // 19 digits do not fit the 18 taken as a number
        Protocol.Action big = v11.send(new OutboundMessage(BOT, ChatRef.group("onebot11", "1234567890123456789"),
                Message.text("x"), null));
        assertThat(big.params().get("group_id").isTextual()).isTrue();
    }

    @Test
    void aSendsTreeIsWhatItsFrameCarries() throws Exception {
        Protocol v11 = Protocol.of(11);
        Protocol.Action send = v11.send(new OutboundMessage(BOT, ChatRef.group("onebot11", "5"),
                Message.of(new Segment.Text("a"), new Segment.Reply("3", null)), "2"));
        assertThat(send.params()).isEqualTo(Json.MAPPER.readTree(frame(v11, send, "4")).get("params"));
        assertThat(new String(send.paramsJson(), StandardCharsets.UTF_8)).isEqualTo(send.params().toString());
    }

    @Test
    void anyOtherActionIsWrittenFromItsTreeAndV12NamesItsBotInSelf() throws Exception {
        var params = Json.MAPPER.createObjectNode().put("group_id", "7").put("user_id", "8");
        Protocol.Action kick = Protocol.Action.of("set_group_kick", params);
        assertThat(kick.params()).isSameAs(params);
        assertThat(frame(Protocol.of(11), kick, "3")).isEqualTo(
                "{\"action\":\"set_group_kick\",\"params\":{\"group_id\":\"7\",\"user_id\":\"8\"},\"echo\":\"3\"}");
        assertThat(new String(Protocol.of(12).frame(kick, null, "10001", "qq"), StandardCharsets.UTF_8)).isEqualTo(
                "{\"action\":\"set_group_kick\",\"params\":{\"group_id\":\"7\",\"user_id\":\"8\"},"
                        + "\"self\":{\"platform\":\"qq\",\"user_id\":\"10001\"}}");
    }

    @Test
    void v11HasNoChannelsToSendTo() {
        assertThatThrownBy(() -> Protocol.of(11).send(new OutboundMessage(BOT, ChatRef.channel("onebot11", "g", "c"),
                Message.text("x"), null))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no channels");
    }

    private static String frame(Protocol p, Protocol.Action a, String echo) throws Exception {
        return new String(p.frame(a, echo, BOT.userId(), null), StandardCharsets.UTF_8);
    }
}
