package dev.pulsebus.transcript;

import org.jspecify.annotations.Nullable;

/**
 * A durable record was taken but is not stored yet, and will be, once: the store is failing and the
 * writer keeps the record in memory and retries it (its follow-up runs when it commits), or the writer was
 * closed and spilled it to disk (the next writer on that directory stores it; no follow-up runs). In
 * memory it is lost to a {@code kill -9} until it commits. A caller that answers a client says "accepted",
 * not "failed": resending would store the record twice.
 */
public final class NotYetStoredException extends IllegalStateException {

    private final transient TranscriptRecord record;
    private final boolean spilled;

    NotYetStoredException(TranscriptRecord record, boolean spilled, @Nullable Throwable cause) {
        super(spilled ? "the transcript store was down at shutdown: record " + record.seq()
                        + " is spilled to disk and stored at the next start"
                : "the transcript store is failing" + (cause == null ? "" : " (" + cause.getClass().getSimpleName() + ")")
                        + ": record " + record.seq() + " is kept and stored once the store is back", cause);
        this.record = record;
        this.spilled = spilled;
    }

    /** The record, with the seq it will be stored under. */
    public TranscriptRecord record() {
        return record;
    }

    /** Whether it is on disk (spilled at close) rather than in the writer's memory. */
    public boolean spilled() {
        return spilled;
    }
}
