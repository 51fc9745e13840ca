package dev.pulsebus.server;

import dev.pulsebus.internal.HeapShare;
import dev.pulsebus.transcript.TranscriptRecord;
import dev.pulsebus.transcript.TranscriptWriter;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Reads an {@code http} room: from memory ({@link RecentRooms}) when the newest messages kept there cover
 * the request, else from the transcript store. The one place that decides between the two, for history
 * and for long-polls alike.
 */
final class RoomHistory implements LongPollRooms.Reader {

    /** The heap a room full of the heaviest lines measured takes: 146 MB for 1024 rooms. */
    private static final int FULL_ROOM_BYTES = 146 * 1024;

    /**
     * The newest committed messages of active rooms: history and polls of a busy room skip the store. As many
     * rooms as fill an eighth of the heap when full of the heaviest lines measured (docs/SERVER.md), 16 to
     * 1024 (28 in {@code ./pulsebus}'s 32 MB).
     */
    final RecentRooms recent = new RecentRooms(HeapShare.entries(8, FULL_ROOM_BYTES, 16, 1024), 100, 32 * 1024);
    private final TranscriptWriter transcripts;

    RoomHistory(TranscriptWriter transcripts) {
        this.transcripts = transcripts;
    }

    /** Keeps a message that has just committed (in seq order, see {@link RecentRooms}). */
    void committed(String room, TranscriptRecord record) {
        recent.committed(room, record);
    }

    /**
     * A room's history from memory when it covers the request (no query, safe on an I/O thread), each
     * message as its JSON; else null, and {@link #stored} answers.
     */
    @Nullable List<byte[]> fromMemory(String room, int limit, long beforeSeq) {
        return recent.lastJson(room, limit, beforeSeq, Responses::message);
    }

    /** A room's history from the transcript (may query): for what {@link #fromMemory} did not cover. */
    List<TranscriptRecord> stored(String room, int limit, long beforeSeq) throws Exception {
        return transcripts.history(HttpChat.room(room), limit, beforeSeq);
    }

    /** The messages after {@code afterSeq}, newest {@code limit}, oldest first: from memory, else the store (may query). */
    @Override
    public List<TranscriptRecord> after(String room, long afterSeq, int limit) throws Exception {
        List<TranscriptRecord> kept = recent.after(room, afterSeq, limit);
        return kept != null ? kept : newerThan(stored(room, limit, Long.MAX_VALUE), afterSeq);
    }

    private static List<TranscriptRecord> newerThan(List<TranscriptRecord> records, long after) {
        int from = 0;
        while (from < records.size() && records.get(from).seq() <= after) {
            from++;
        }
        return from == 0 ? records : records.subList(from, records.size());
    }
}
