package dev.pulsebus.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class OneBotJsonTest {

    @Test
    void everySegmentSurvivesTheRoundTrip() {
        Message m = Message.of(new Segment.Reply("m-9", "u-2"), new Segment.Mention("bot"), new Segment.Text(" hi "),
                new Segment.MentionAll(), new Segment.Image("file-1"), new Segment.Reply("m-10", null),
                new Segment.Other("location", Map.of("latitude", 35.6, "title", "Tokyo")));

        String json = OneBotJson.write(m);

        assertThat(OneBotJson.read(json)).isEqualTo(m);
        assertThat(OneBotJson.read(OneBotJson.tree(m))).isEqualTo(m);
        assertThat(OneBotJson.tree(m).toString()).isEqualTo(json);
        assertThat(json).startsWith("[{\"type\":\"reply\",\"data\":{\"message_id\":\"m-9\",\"user_id\":\"u-2\"}},"
                + "{\"type\":\"mention\",\"data\":{\"user_id\":\"bot\"}},{\"type\":\"text\",\"data\":{\"text\":\" hi \"}}");
    }

    @Test
    void plainTextAndCommandText() {
        Message m = Message.of(new Segment.Mention("bot"), new Segment.Text(" /help me "), new Segment.Image("f"));

        assertThat(m.plainText()).isEqualTo("@bot /help me [image]");
        assertThat(m.commandText("bot")).isEqualTo("/help me [image]");
        assertThat(m.mentions("bot")).isTrue();
        assertThat(m.mentions("someone")).isFalse();
        assertThat(Message.of(new Segment.MentionAll()).mentions("bot")).isTrue();
    }

    @Test
    void aJsonStringIsOneTextSegment() {
        assertThat(OneBotJson.read("\"hello\"")).isEqualTo(Message.text("hello"));
    }

    @Test
    void malformedMessagesSayWhatIsWrong() {
        assertThatThrownBy(() -> OneBotJson.read("[{\"type\":\"text\"")).hasMessageStartingWith("message is not valid JSON");
        assertThatThrownBy(() -> OneBotJson.read("{}")).hasMessageContaining("JSON array of segments");
        assertThatThrownBy(() -> OneBotJson.read("[{\"type\":\"mention\",\"data\":{}}]"))
                .hasMessage("a mention segment needs data.user_id");
        assertThatThrownBy(() -> OneBotJson.read("[{\"data\":{}}]")).hasMessage("a message segment has no type");
        assertThatThrownBy(() -> OneBotJson.read("[{\"type\":\"location\",\"data\":{\"title\":null}}]"))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("a location segment's data.title is null");
        assertThatThrownBy(() -> OneBotJson.read("[{\"type\":\"text\",\"data\":{\"text\":null}}]"))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("a text segment needs data.text");
        // Deeper down, a null is a value like any other.
        assertThat(OneBotJson.read("[{\"type\":\"card\",\"data\":{\"a\":{\"b\":null},\"c\":[null]}}]").segments())
                .singleElement().isInstanceOfSatisfying(Segment.Other.class, o -> assertThat(o.data()).containsKeys("a", "c"));
    }
}
