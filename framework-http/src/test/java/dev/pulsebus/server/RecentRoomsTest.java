package dev.pulsebus.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulsebus.event.ChatRef;
import dev.pulsebus.event.Message;
import dev.pulsebus.event.Segment;
import dev.pulsebus.transcript.TranscriptRecord;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class RecentRoomsTest {

    private static TranscriptRecord rec(long seq) {
        return new TranscriptRecord(seq, ChatRef.group("http", "r"), "u", Instant.EPOCH, "m" + seq, Message.text("t" + seq), false);
    }

    /** {@link RecentRooms#lastJson} with each message "written" as its seq: the seqs, or null. */
    private static List<Long> last(RecentRooms recent, String room, int n, long before) {
        List<byte[]> json = recent.lastJson(room, n, before, r -> Long.toString(r.seq()).getBytes(StandardCharsets.US_ASCII));
        return json == null ? null : json.stream().map(b -> Long.parseLong(new String(b, StandardCharsets.US_ASCII))).toList();
    }

    private static List<Long> seqs(List<TranscriptRecord> records) {
        return records == null ? null : records.stream().map(TranscriptRecord::seq).toList();
    }

    @Test
    void answersOnlyWhatTheNewestRunInMemoryCovers() {
        RecentRooms recent = new RecentRooms(8, 4, Integer.MAX_VALUE);
        assertThat(last(recent, "r", 1, Long.MAX_VALUE)).isNull();
        for (long s : new long[] {10, 12, 11, 15}) { // 11 committed after 12: inserted in place
            recent.committed("r", rec(s));
        }
        assertThat(last(recent, "r", 4, Long.MAX_VALUE)).containsExactly(10L, 11L, 12L, 15L);
        assertThat(last(recent, "r", 2, 15)).containsExactly(11L, 12L);
        assertThat(last(recent, "r", 3, 15)).as("three kept below 15: enough for three").isNotNull();
        assertThat(last(recent, "r", 4, 15)).as("a fourth below 15 may be in the store only").isNull();
        assertThat(seqs(recent.after("r", 11, 100))).containsExactly(12L, 15L);
        assertThat(seqs(recent.after("r", 11, 1))).containsExactly(15L);
        assertThat(seqs(recent.after("r", 15, 100))).isEmpty();
        assertThat(recent.after("r", 9, 100)).as("10 is the oldest kept: 9 < seq < 10 may exist").isNull();

        recent.committed("r", rec(20)); // full: 10 goes
        assertThat(last(recent, "r", 4, Long.MAX_VALUE)).containsExactly(11L, 12L, 15L, 20L);
        recent.committed("r", rec(5)); // older than all kept: the store has it
        assertThat(last(recent, "r", 4, Long.MAX_VALUE)).containsExactly(11L, 12L, 15L, 20L);
    }

    @Test
    void roomsAreBounded() {
        RecentRooms recent = new RecentRooms(2, 4, Integer.MAX_VALUE);
        recent.committed("a", rec(1));
        recent.committed("b", rec(2));
        recent.committed("c", rec(3));
        assertThat(last(recent, "a", 1, Long.MAX_VALUE)).isNull();
        assertThat(last(recent, "c", 1, Long.MAX_VALUE)).containsExactly(3L);
    }

    @Test
    void eachKeptMessageIsWrittenOnceAndStaysBesideItsRecordAsOthersMoveIn() {
        RecentRooms recent = new RecentRooms(8, 3, Integer.MAX_VALUE);
        List<Long> written = new ArrayList<>();
        Function<TranscriptRecord, byte[]> writer = writingJsonSeq(written);
        recent.committed("r", rec(10));
        recent.committed("r", rec(20));
        assertThat(texts(recent.lastJson("r", 2, Long.MAX_VALUE, writer))).containsExactly("json10", "json20");
        assertThat(texts(recent.lastJson("r", 2, Long.MAX_VALUE, writer))).containsExactly("json10", "json20");
        assertThat(written).as("each written once").containsExactly(10L, 20L);

        recent.committed("r", rec(15)); // in place, between the two
        recent.committed("r", rec(30)); // full: 10 goes
        assertThat(texts(recent.lastJson("r", 3, Long.MAX_VALUE, writer))).containsExactly("json15", "json20", "json30");
        assertThat(texts(recent.lastJson("r", 1, 30, writer))).containsExactly("json20");
        assertThat(recent.lastJson("r", 3, 30, writer)).as("a third below 30 may be in the store only").isNull();
        assertThat(written).containsExactly(10L, 20L, 15L, 30L);
    }

    /** A writer of "json" + seq that notes each seq it writes. */
    private static Function<TranscriptRecord, byte[]> writingJsonSeq(List<Long> written) {
        return r -> {
            written.add(r.seq());
            return ("json" + r.seq()).getBytes(StandardCharsets.US_ASCII);
        };
    }

    private static List<String> texts(List<byte[]> json) {
        return json.stream().map(b -> new String(b, StandardCharsets.US_ASCII)).toList();
    }

    @Test
    void aLateLowerSeqInAFullRoomKeepsEveryJsonBesideItsRecord() {
        RecentRooms recent = new RecentRooms(8, 3, Integer.MAX_VALUE);
        List<Long> written = new ArrayList<>();
        Function<TranscriptRecord, byte[]> writer = writingJsonSeq(written);
        for (long s : new long[] {10, 20, 30}) {
            recent.committed("r", rec(s));
        }
        assertThat(texts(recent.lastJson("r", 3, Long.MAX_VALUE, writer))).containsExactly("json10", "json20", "json30");
        recent.committed("r", rec(25)); // full: 10 goes, 25 goes in between 20 and 30
        assertThat(texts(recent.lastJson("r", 3, Long.MAX_VALUE, writer))).containsExactly("json20", "json25", "json30");
        assertThat(written).containsExactly(10L, 20L, 30L, 25L);
    }

    @Test
    void aLongMessagesJsonIsWrittenAtEachReadInsteadOfKept() {
        RecentRooms recent = new RecentRooms(8, 3, Integer.MAX_VALUE);
        List<Long> written = new ArrayList<>();
        Function<TranscriptRecord, byte[]> writer = r -> {
            written.add(r.seq());
            return new byte[r.seq() == 2 ? RecentRooms.MAX_KEPT_JSON + 1 : RecentRooms.MAX_KEPT_JSON];
        };
        recent.committed("r", rec(1));
        recent.committed("r", rec(2));
        recent.lastJson("r", 2, Long.MAX_VALUE, writer);
        recent.lastJson("r", 2, Long.MAX_VALUE, writer);
        assertThat(written).containsExactly(1L, 2L, 2L);
    }

    private static TranscriptRecord rec(long seq, int textLength) {
        return new TranscriptRecord(seq, ChatRef.group("http", "r"), "u", Instant.EPOCH, "m" + seq,
                Message.text("x".repeat(textLength)), false);
    }

    @Test
    void aRoomKeepsItsNewestMessagesWithinItsWeight() {
        int w = 100 + 1 + RecentRooms.OVERHEAD; // each message below weighs this: text, user "u", overhead
        RecentRooms recent = new RecentRooms(8, 10, 3 * w);
        for (long s = 1; s <= 5; s++) {
            recent.committed("r", rec(s, 100));
        }
        assertThat(last(recent, "r", 3, Long.MAX_VALUE)).containsExactly(3L, 4L, 5L);
        assertThat(last(recent, "r", 4, Long.MAX_VALUE)).as("2 was let go: the store has it").isNull();
        recent.committed("r", rec(2, 1)); // late, and at or below what was let go: not kept
        assertThat(last(recent, "r", 3, Long.MAX_VALUE)).containsExactly(3L, 4L, 5L);

        recent.committed("r", rec(6, 100 + 2 * w)); // as heavy as the whole room: all before it go
        assertThat(last(recent, "r", 1, Long.MAX_VALUE)).containsExactly(6L);
        assertThat(last(recent, "r", 2, Long.MAX_VALUE)).isNull();
    }

    @Test
    void aMessageHeavierThanAWholeRoomIsNotKeptAndMemoryStartsAgainAfterIt() {
        int w = 10 + 1 + RecentRooms.OVERHEAD;
        RecentRooms recent = new RecentRooms(8, 10, 4 * w);
        recent.committed("r", rec(1, 10));
        recent.committed("r", rec(3, 10));
        recent.committed("r", rec(2, 4 * w)); // late and too heavy: 1 goes with it, 3 stays
        assertThat(last(recent, "r", 1, Long.MAX_VALUE)).containsExactly(3L);
        assertThat(last(recent, "r", 2, Long.MAX_VALUE)).as("2 is in the store only").isNull();
        assertThat(recent.after("r", 1, 10)).as("2 lies between").isNull();
        assertThat(seqs(recent.after("r", 2, 10))).as("all after 2 is here").containsExactly(3L);
        recent.committed("r", rec(-5, 10)); // later still, and at or below the floor: not kept (kept, it would hide 2)
        assertThat(last(recent, "r", 2, Long.MAX_VALUE)).isNull();
        recent.committed("r", rec(4, 10));
        assertThat(last(recent, "r", 2, Long.MAX_VALUE)).containsExactly(3L, 4L);
        recent.committed("r", rec(5, 4 * w)); // too heavy, newest: everything before it goes
        assertThat(last(recent, "r", 1, Long.MAX_VALUE)).isNull();
        recent.committed("r", rec(6, 10));
        assertThat(last(recent, "r", 1, Long.MAX_VALUE)).containsExactly(6L);
        assertThat(last(recent, "r", 2, Long.MAX_VALUE)).isNull();
    }

    @Test
    void aRoomMadeAgainAfterItWasLetGoKeepsNothingBelowWhatOtherRoomsHadThen() {
        RecentRooms recent = new RecentRooms(1, 10, Integer.MAX_VALUE); // one room at a time
        recent.committed("a", rec(1));
        recent.committed("a", rec(2));
        recent.committed("a", rec(4));
        recent.committed("b", rec(5)); // "a" is let go: its messages are in the store only
        recent.committed("a", rec(3)); // late: kept alone, it would cover "after 3" without 4
        assertThat(recent.after("a", 3, 10)).isNull();
        assertThat(last(recent, "a", 1, Long.MAX_VALUE)).isNull();
        recent.committed("a", rec(6));
        assertThat(seqs(recent.after("a", 5, 10))).containsExactly(6L);
        assertThat(recent.after("a", 4, 10)).isNull();
    }

    @Test
    void onlyTheTextOfAMessageIsKept() {
        RecentRooms recent = new RecentRooms(8, 10, Integer.MAX_VALUE);
        recent.committed("r", new TranscriptRecord(1, ChatRef.group("http", "r"), "bot", Instant.EPOCH, "m1",
                Message.of(new Segment.Text("look: "), new Segment.Image("x".repeat(100_000))), true));
        List<TranscriptRecord> read = new ArrayList<>();
        recent.lastJson("r", 1, Long.MAX_VALUE, r -> {
            read.add(r);
            return new byte[0];
        });
        TranscriptRecord kept = read.get(0);
        assertThat(kept.message()).isEqualTo(Message.text("look: [image]"));
        assertThat(kept.seq()).isEqualTo(1);
        assertThat(kept.outbound()).isTrue();
    }
}
