package dev.pulsebus.onebot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulsebus.internal.Json;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** A frame read into a tree by the byte reader: the very tree Jackson's readTree makes, or null. */
class JsonTreeTest {

    @Test
    void aResponseAndOddDocumentsReadAsJacksonReadsThem() throws Exception {
        String[] docs = {
            "{\"status\":\"ok\",\"retcode\":0,\"data\":{\"message_id\":1234567},\"echo\":\"42\"}",
            "{\"status\":\"failed\",\"retcode\":100,\"data\":null,\"msg\":\"x\",\"wording\":\"\\u4e0d\\u884c\\n\"}",
            "{\"n\":[0,-0,2147483647,2147483648,-2147483649,9223372036854775807,9223372036854775808,"
                    + "-92233720368547758080,1.5,-2.0e3,1E2,0.1],\"b\":[true,false,null],\"e\":{},\"a\":[],"
                    + "\"s\":\"東京 🌸 \\\"q\\\" \\\\ \\/ \\ud83c\\udf38\"}",
            " {\"k\":1,\"k\":{\"deep\":[[[{\"x\":[]}]]]}} ",
            "{\"data\":[{\"user_id\":10001,\"nickname\":\"a\",\"card\":null,\"role\":\"owner\"}]}",
        };
        for (String doc : docs) {
            assertThat(JsonTree.object(buf(doc))).as(doc).isEqualTo(Json.MAPPER.readTree(doc));
        }
    }

    @Test
    void whatIsNoObjectOrNoJsonIsNullAndTheFrameIsNotConsumed() {
        for (String doc : new String[] {"[1]", "\"s\"", "3", "", "{", "{\"a\":}", "{\"a\":1} x", "{'a':1}",
                "{\"a\":NaN}", "{\"a\":01}"}) {
            ByteBuf frame = buf(doc);
            assertThat(JsonTree.object(frame)).as(doc).isNull();
            assertThat(frame.readerIndex()).isZero();
        }
        ByteBuf overlong = Unpooled.wrappedBuffer(new byte[] {'{', '"', 'a', '"', ':', '"', (byte) 0xC0, (byte) 0xAF,
            '"', '}'});
        assertThat(JsonTree.object(overlong)).isNull();
    }

    @Test
    void aDirectBufferReadsAsAHeapOne() {
        String doc = "{\"echo\":\"7\",\"data\":{\"message_id\":-3}}";
        ByteBuf direct = Unpooled.directBuffer().writeBytes(doc.getBytes(StandardCharsets.UTF_8));
        try {
            assertThat(JsonTree.object(direct)).isEqualTo(JsonTree.object(buf(doc)));
        } finally {
            direct.release();
        }
    }

    private static ByteBuf buf(String s) {
        return Unpooled.wrappedBuffer(s.getBytes(StandardCharsets.UTF_8));
    }
}
