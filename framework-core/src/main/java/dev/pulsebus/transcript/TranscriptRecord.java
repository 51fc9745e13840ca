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
}
