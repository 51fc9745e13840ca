package dev.pulsebus.transcript;

import dev.pulsebus.event.ChatRef;
import java.time.Instant;
import java.util.List;

/**
 * Where a {@link TranscriptWriter} puts its batches. {@code framework-storage} implements it on SQLite,
 * PostgreSQL and MariaDB; {@link InMemoryTranscriptStore} keeps rows in memory. Called by one writer
 * thread for appends and retention, and by any thread for reads.
 */
public interface TranscriptStore extends AutoCloseable {

    /**
     * Stores {@code batch} in one transaction, all or nothing. Durable (per the store) when it returns.
     * The list is the writer's, reused for its next batch: read it during the call, keep no reference.
     */
    void append(List<TranscriptRecord> batch) throws Exception;

    /** The last {@code n} records of {@code chat} with {@code seq < beforeSeq}, oldest first. */
    List<TranscriptRecord> last(ChatRef chat, int n, long beforeSeq) throws Exception;

    /**
     * Deletes, in every chat, the records beyond the newest {@code keepPerChat} and those older than
     * {@code cutoff}; returns how many went.
     */
    long retain(int keepPerChat, Instant cutoff) throws Exception;

    /**
     * The ids of the chats of {@code platform} and {@code detailType} that have records, the one written to
     * last first, at most {@code limit} (what a console lists as rooms). A store that cannot tell answers none.
     */
    default List<String> chatIds(String platform, String detailType, int limit) throws Exception {
        return List.of();
    }

    /** The highest {@code seq} stored, 0 when empty: a new writer continues after it. */
    long maxSeq() throws Exception;

    @Override
    default void close() throws Exception {
    }
}
