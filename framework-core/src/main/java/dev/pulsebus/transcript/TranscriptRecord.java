package dev.pulsebus.transcript;

import dev.pulsebus.event.ChatRef;
import dev.pulsebus.event.Message;
import java.time.Instant;
import java.util.Objects;

/**
 * One recorded message, inbound or sent. {@code seq} orders all records of a writer (and its store),
 * across chats; {@code messageId} is the platform's id ({@code ""} when it gave none).
 */
public record TranscriptRecord(long seq, ChatRef chat, String userId, Instant time, String messageId,
                               Message message, boolean outbound) {

    public TranscriptRecord {
        Objects.requireNonNull(chat, "chat");
        Objects.requireNonNull(userId, "userId");
        Objects.requireNonNull(time, "time");
        Objects.requireNonNull(message, "message");
        messageId = messageId == null ? "" : messageId;
    }

    /** The message's plain text. */
    public String text() {
        return message.plainText();
    }

    /** This record as one line of JSON (as spill files hold it), read back whole by {@link #fromJson}. */
    public String toJson() {
        return SpillJournal.line(this);
    }

    /**
     * {@link #toJson}'s object as a tree, a new one each call: for a caller that adds fields of its own before
     * writing it (read back by {@link #fromJson}, which ignores them).
     */
    public com.fasterxml.jackson.databind.node.ObjectNode toJsonTree() {
        return SpillJournal.tree(this);
    }

    /**
     * The record {@link #toJson} wrote.
     *
     * @throws IllegalArgumentException when {@code json} is not one
     */
    public static TranscriptRecord fromJson(String json) {
        try {
            return SpillJournal.record(dev.pulsebus.internal.Json.MAPPER.readTree(json));
        } catch (java.io.IOException | RuntimeException e) {
            throw new IllegalArgumentException("not a transcript record: " + e.getMessage(), e);
        }
    }
}
