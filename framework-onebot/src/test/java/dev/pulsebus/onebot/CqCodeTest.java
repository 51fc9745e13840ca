package dev.pulsebus.onebot;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pulsebus.event.Message;
import dev.pulsebus.event.Segment;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The examples of OneBot v11's message/string.md. */
class CqCodeTest {

    @Test
    void readsTheSpecsExampleMessage() {
        JsonNode array = CqCode.parse("[CQ:face,id=178]看看我刚拍的照片[CQ:image,file=123.jpg]");
        assertThat(array.toString()).isEqualTo("[{\"type\":\"face\",\"data\":{\"id\":\"178\"}},"
                + "{\"type\":\"text\",\"data\":{\"text\":\"看看我刚拍的照片\"}},"
                + "{\"type\":\"image\",\"data\":{\"file\":\"123.jpg\"}}]");
    }

    @Test
    void unescapesTextAndValues() {
        assertThat(CqCode.parse("- &#91;x&#93; 使用 `&amp;data` 获取地址").get(0).path("data").path("text").asText())
                .isEqualTo("- [x] 使用 `&data` 获取地址");
        JsonNode share = CqCode.parse("[CQ:share,title=震惊&#44;小伙睡觉前居然...,url=http://baidu.com/?a=1&amp;b=2]")
                .get(0).path("data");
        assertThat(share.path("title").asText()).isEqualTo("震惊,小伙睡觉前居然...");
        assertThat(share.path("url").asText()).isEqualTo("http://baidu.com/?a=1&b=2");
    }

    @Test
    void aValueMayHoldAnEqualsSignAndACodeNoParameters() {
        JsonNode share = CqCode.parse("[CQ:share,title=标题中有=等号,url=http://baidu.com]").get(0).path("data");
        assertThat(share.path("title").asText()).isEqualTo("标题中有=等号");
        assertThat(CqCode.parse("[CQ:shake]").toString()).isEqualTo("[{\"type\":\"shake\",\"data\":{}}]");
    }

    @Test
    void anUnclosedCodeIsText() {
        assertThat(CqCode.parse("a [CQ:face,id=1").toString())
                .isEqualTo("[{\"type\":\"text\",\"data\":{\"text\":\"a [CQ:face,id=1\"}}]");
    }

    @Test
    void writesWhatItReads() {
        String text = "[CQ:at,qq=all] - &#91;x&#93; &amp;[CQ:share,title=震惊&#44;小伙,url=http://a/?a=1&amp;b=2]";
        assertThat(CqCode.format(CqCode.parse(text))).isEqualTo(text);
    }

    @Test
    void segmentsMapOntoTheRecordsAndUnknownOnesAreKept() throws Exception {
        Message m = V11Segments.read(CqCode.parse("[CQ:reply,id=9][CQ:at,qq=all][CQ:at,qq=42]hi"
                + "[CQ:image,file=a.jpg,url=http://x/a.jpg][CQ:record,file=v.amr][CQ:json,data={&#44;}][CQ:new_thing,k=v]"),
                new JsonValues());
        assertThat(m.segments()).containsExactly(new Segment.Reply("9", null), new Segment.MentionAll(),
                new Segment.Mention("42"), new Segment.Text("hi"), new Segment.Image("http://x/a.jpg"),
                new Segment.Other("record", Map.of("file", "v.amr")), new Segment.Other("json", Map.of("data", "{,}")),
                new Segment.Other("new_thing", Map.of("k", "v")));
        assertThat(written(m, "8")).startsWith("[{\"type\":\"reply\",\"data\":{\"id\":\"8\"}},"
                + "{\"type\":\"reply\",\"data\":{\"id\":\"9\"}},{\"type\":\"at\",\"data\":{\"qq\":\"all\"}},"
                + "{\"type\":\"at\",\"data\":{\"qq\":\"42\"}}");
        assertThat(List.of(m.plainText())).containsExactly("@all@42hi[image][record][json][new_thing]");
    }

    private static String written(Message m, String replyTo) throws java.io.IOException {
        java.io.StringWriter out = new java.io.StringWriter();
        try (com.fasterxml.jackson.core.JsonGenerator g = dev.pulsebus.internal.JsonStreaming.FACTORY.createGenerator(out)) {
            V11Segments.write(g, m, replyTo);
        }
        return out.toString();
    }
}
