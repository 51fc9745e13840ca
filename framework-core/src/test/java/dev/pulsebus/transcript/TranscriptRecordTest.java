package dev.pulsebus.transcript;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulsebus.event.ChatRef;
import dev.pulsebus.event.Message;
import dev.pulsebus.event.Segment;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class TranscriptRecordTest {

    private static final TranscriptRecord RECORD = new TranscriptRecord(42, new ChatRef("http", "group", "lobby"), "ann",
            Instant.parse("2026-12-07T12:00:00.123456789Z"), "m-1",
            Message.of(new Segment.Mention("bot"), new Segment.Text(" /echo \"hi\"\n")), true);

    @Test
    void itsJsonReadsBackWhole() {
        assertThat(TranscriptRecord.fromJson(RECORD.toJson())).isEqualTo(RECORD);
    }

    @Test
    void itsTreeIsItsJsonAndTakesFieldsOfACallersOwn() {
        assertThat(RECORD.toJsonTree().toString()).isEqualTo(RECORD.toJson());

        String withMore = RECORD.toJsonTree().put("to", "amq.gen-1").put("kept", true).toString();

        assertThat(TranscriptRecord.fromJson(withMore)).isEqualTo(RECORD);
        assertThat(RECORD.toJsonTree().has("to")).isFalse(); // a new tree each call
    }
}
