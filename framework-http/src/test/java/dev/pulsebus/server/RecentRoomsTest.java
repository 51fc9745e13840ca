package dev.pulsebus.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulsebus.event.ChatRef;
import dev.pulsebus.event.Message;
import dev.pulsebus.transcript.TranscriptRecord;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class RecentRoomsTest {

    private static TranscriptRecord rec(long seq) {
        return new TranscriptRecord(seq, ChatRef.group("http", "r"), "u", Instant.EPOCH, "m" + seq, Message.text("t" + seq), false);
    }

    private static List<Long> seqs(List<TranscriptRecord> records) {
        return records == null ? null : records.stream().map(TranscriptRecord::seq).toList();
    }

    @Test
    void answersOnlyWhatTheNewestRunInMemoryCovers() {
        RecentRooms recent = new RecentRooms(8, 4);
        assertThat(recent.last("r", 1, Long.MAX_VALUE)).isNull();
        for (long s : new long[] {10, 12, 11, 15}) { // 11 committed after 12: inserted in place
            recent.committed("r", rec(s));
        }
        assertThat(seqs(recent.last("r", 4, Long.MAX_VALUE))).containsExactly(10L, 11L, 12L, 15L);
        assertThat(seqs(recent.last("r", 2, 15))).containsExactly(11L, 12L);
        assertThat(recent.last("r", 3, 15)).as("three kept below 15: enough for three").isNotNull();
        assertThat(recent.last("r", 4, 15)).as("a fourth below 15 may be in the store only").isNull();
        assertThat(seqs(recent.after("r", 11, 100))).containsExactly(12L, 15L);
        assertThat(seqs(recent.after("r", 11, 1))).containsExactly(15L);
        assertThat(seqs(recent.after("r", 15, 100))).isEmpty();
        assertThat(recent.after("r", 9, 100)).as("10 is the oldest kept: 9 < seq < 10 may exist").isNull();

        recent.committed("r", rec(20)); // full: 10 goes
        assertThat(seqs(recent.last("r", 4, Long.MAX_VALUE))).containsExactly(11L, 12L, 15L, 20L);
        recent.committed("r", rec(5)); // older than all kept: the store has it
        assertThat(seqs(recent.last("r", 4, Long.MAX_VALUE))).containsExactly(11L, 12L, 15L, 20L);
    }

    @Test
    void roomsAreBounded() {
        RecentRooms recent = new RecentRooms(2, 4);
        recent.committed("a", rec(1));
        recent.committed("b", rec(2));
        recent.committed("c", rec(3));
        assertThat(recent.last("a", 1, Long.MAX_VALUE)).isNull();
        assertThat(seqs(recent.last("c", 1, Long.MAX_VALUE))).containsExactly(3L);
    }
}
