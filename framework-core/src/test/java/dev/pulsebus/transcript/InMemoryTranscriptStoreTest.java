package dev.pulsebus.transcript;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulsebus.event.ChatRef;
import dev.pulsebus.event.Message;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The in-memory store's reads, as the JDBC store answers them (TranscriptAndQuotaTest in framework-storage). */
class InMemoryTranscriptStoreTest {

    private static TranscriptRecord rec(long seq, ChatRef chat) {
        return new TranscriptRecord(seq, chat, "u", Instant.EPOCH, "m" + seq, Message.text("t"), false);
    }

    @Test
    void chatIdsListAPlatformsChatsOfOneKindWrittenToLastFirst() {
        InMemoryTranscriptStore store = new InMemoryTranscriptStore();
        ChatRef lobby = ChatRef.group("http", "lobby");
        ChatRef kitchen = ChatRef.group("http", "kitchen");
        store.append(List.of(rec(1, lobby), rec(2, kitchen), rec(3, ChatRef.privateChat("http", "ann")),
                rec(4, lobby), rec(5, ChatRef.group("qq", "elsewhere"))));
        assertThat(store.chatIds("http", ChatRef.GROUP, 10)).containsExactly("lobby", "kitchen");
        assertThat(store.chatIds("http", ChatRef.GROUP, 1)).containsExactly("lobby");
        store.append(List.of(rec(6, kitchen)));
        assertThat(store.chatIds("http", ChatRef.GROUP, 10)).containsExactly("kitchen", "lobby");
    }
}
