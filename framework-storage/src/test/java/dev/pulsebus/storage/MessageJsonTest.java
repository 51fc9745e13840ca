package dev.pulsebus.storage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulsebus.event.Message;
import dev.pulsebus.internal.Json;
import org.junit.jupiter.api.Test;

/** A transcript line's message as stored: a text line is the JSON string Jackson would write, read back whole. */
class MessageJsonTest {

    @Test
    void aTextLineIsTheJsonStringJacksonWritesAndReadsBackAsItself() throws Exception {
        String[] texts = {"plain", "", "with \"quotes\"", "back\\slash", "tab\tnew\nline\r", "\u0000\u001f\u007f",
            "東京 🌸", "\ud800 lone", "</script>", "\"", "\\"};
        for (String text : texts) {
            String stored = JdbcTranscriptStore.messageJson(Message.text(text));
            assertThat(stored).as(text).isEqualTo(Json.MAPPER.writeValueAsString(text));
            assertThat(JdbcTranscriptStore.messageOf(stored)).as(text).isEqualTo(Message.text(text));
        }
    }
}
