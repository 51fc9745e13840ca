package dev.pulsebus.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pulsebus.command.QuotaStore;
import dev.pulsebus.event.ChatRef;
import dev.pulsebus.event.Message;
import dev.pulsebus.event.Segment;
import dev.pulsebus.transcript.TranscriptRecord;
import dev.pulsebus.transcript.TranscriptStore;
import dev.pulsebus.transcript.TranscriptWriter;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/** Transcript persistence, quota persistence and migrations, the same on every backend. */
@ParameterizedClass
@EnumSource(Backend.class)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TranscriptAndQuotaTest {

    private static final ChatRef ROOM = ChatRef.group("http", "lobby");
    private static final ChatRef OTHER = ChatRef.privateChat("qq", "10001");
    private static final Instant T0 = Instant.parse("2026-11-30T10:00:00Z");

    @Parameter
    Backend backend;

    private Backend.Place place;
    private Storage storage;

    @BeforeEach
    void open() {
        place = backend.newPlace();
        storage = place.open();
    }

    @AfterEach
    void close() {
        if (storage != null) {
            storage.close();
        }
        if (place != null) {
            place.close();
        }
    }

    private static TranscriptRecord rec(long seq, ChatRef chat, Instant time, String text) {
        return new TranscriptRecord(seq, chat, "u" + seq, time, "m" + seq,
                Message.of(new Segment.Text(text), new Segment.Mention("bot")), seq % 2 == 0);
    }

    @Test
    void appendedBatchesReadBackAsTheLastNOfAChatOldestFirst() throws Exception {
        TranscriptStore store = storage.transcripts();
        List<TranscriptRecord> batch = new ArrayList<>();
        for (long seq = 1; seq <= 250; seq++) {
            batch.add(rec(seq, seq % 5 == 0 ? OTHER : ROOM, T0.plusSeconds(seq), "hello " + seq));
        }
        store.append(batch);
        assertThat(store.maxSeq()).isEqualTo(250);
        List<TranscriptRecord> last = store.last(ROOM, 3, Long.MAX_VALUE);
        assertThat(last).extracting(TranscriptRecord::seq).containsExactly(247L, 248L, 249L);
        assertThat(last.get(2)).isEqualTo(rec(249, ROOM, T0.plusSeconds(249), "hello 249"));
        assertThat(store.last(ROOM, 2, 247)).extracting(TranscriptRecord::seq).containsExactly(244L, 246L);
        assertThat(store.last(OTHER, 100, Long.MAX_VALUE)).hasSize(50);
        assertThat(store.last(ChatRef.group("http", "empty"), 10, Long.MAX_VALUE)).isEmpty();
    }

    @Test
    void chatIdsListAPlatformsChatsOfOneKindWrittenToLastFirst() throws Exception {
        TranscriptStore store = storage.transcripts();
        ChatRef kitchen = ChatRef.group("http", "kitchen");
        store.append(List.of(rec(1, ROOM, T0, "a"), rec(2, kitchen, T0, "b"), rec(3, OTHER, T0, "c"),
                rec(4, ROOM, T0, "d"), rec(5, ChatRef.group("qq", "elsewhere"), T0, "e")));
        assertThat(store.chatIds("http", "group", 10)).containsExactly("lobby", "kitchen");
        assertThat(store.chatIds("http", "group", 1)).containsExactly("lobby");
        store.append(List.of(rec(6, kitchen, T0, "f")));
        assertThat(store.chatIds("http", "group", 10)).containsExactly("kitchen", "lobby");
        assertThat(store.chatIds("http", "private", 10)).isEmpty();
        assertThat(store.chatIds("qq", "private", 10)).containsExactly("10001");
    }

    @Test
    void textMessagesWithQuotesBackslashesAndUnicodeReadBackExactly() throws Exception {
        TranscriptStore store = storage.transcripts();
        String[] texts = {"plain", "with \"quotes\"", "back\\slash", "tab\tnew\nline", "東京 🌸", "", "\"", "\\"};
        List<TranscriptRecord> batch = new ArrayList<>();
        for (int i = 0; i < texts.length; i++) {
            batch.add(new TranscriptRecord(i + 1, ROOM, "u", T0, "m" + i, Message.text(texts[i]), false));
        }
        batch.add(new TranscriptRecord(texts.length + 1, ROOM, "u", T0, "seg", Message.of(new Segment.Text("a"),
                new Segment.Mention("bot")), false));
        store.append(batch);
        assertThat(store.last(ROOM, 100, Long.MAX_VALUE)).containsExactlyElementsOf(batch);
    }

    @Test
    void aBatchIsAllOrNothing() throws Exception {
        TranscriptStore store = storage.transcripts();
        store.append(List.of(rec(1, ROOM, T0, "one")));
        List<TranscriptRecord> failing = new ArrayList<>();
        for (long seq = 2; seq <= 150; seq++) { // two INSERTs: the first runs, the second fails
            failing.add(rec(seq, ROOM, T0, "x"));
        }
        failing.set(140, new TranscriptRecord(142, ROOM, "ann", T0, "m142",
                new Message(List.of(new Segment.Other("x", Map.of("unwritable", new Object())))), false));
        assertThatThrownBy(() -> store.append(failing)).isNotNull();
        assertThat(store.maxSeq()).isEqualTo(1);
        assertThat(store.last(ROOM, 10, Long.MAX_VALUE)).extracting(TranscriptRecord::seq).containsExactly(1L);
    }

    @Test
    void aBatchAppendedAgainAfterItsCommitWasLostStoresEachRecordOnce() throws Exception {
        TranscriptStore store = storage.transcripts();
        List<TranscriptRecord> batch = new ArrayList<>();
        for (long seq = 1; seq <= 130; seq++) {
            batch.add(rec(seq, ROOM, T0.plusSeconds(seq), "r" + seq));
        }
        store.append(batch.subList(0, 120)); // committed, but say its answer never came back

        store.append(batch); // the writer retries the whole batch

        List<TranscriptRecord> stored = store.last(ROOM, 1000, Long.MAX_VALUE);
        assertThat(stored).extracting(TranscriptRecord::seq).containsExactlyElementsOf(
                batch.stream().map(TranscriptRecord::seq).toList());
    }

    @Test
    void retentionKeepsTheNewestPerChatAndDropsOldRows() throws Exception {
        TranscriptStore store = storage.transcripts();
        List<TranscriptRecord> batch = new ArrayList<>();
        for (long seq = 1; seq <= 2500; seq++) {
            // ROOM: 2400 recent rows; OTHER: 100 rows, half of them older than the cutoff.
            batch.add(seq <= 2400 ? rec(seq, ROOM, T0.plusSeconds(10_000 + seq), "r") : rec(seq, OTHER, T0.plusSeconds(seq), "o"));
        }
        store.append(batch);
        // OTHER's rows 2401..2450 are older than the cutoff; ROOM keeps its newest 1200 (1201..2400).
        long deleted = store.retain(1200, T0.plusSeconds(2451));
        assertThat(deleted).isEqualTo(1200 + 50);
        assertThat(store.last(ROOM, 5000, Long.MAX_VALUE)).extracting(TranscriptRecord::seq)
                .startsWith(1201L).endsWith(2400L).hasSize(1200);
        assertThat(store.last(OTHER, 5000, Long.MAX_VALUE)).hasSize(50);
        assertThat(store.retain(0, Instant.MAX)).isEqualTo(1250);
        assertThat(store.last(ROOM, 10, Long.MAX_VALUE)).isEmpty();
    }

    @Test
    @SuppressWarnings("try")
    void theTranscriptWriterPersistsThroughTheStoreAndContinuesAfterRestart() throws Exception {
        try (TranscriptWriter writer = TranscriptWriter.builder(storage.transcripts()).build()) {
            for (int i = 0; i < 20; i++) {
                writer.record(ROOM, "alice", T0.plusSeconds(i), "m" + i, Message.text("line " + i), false);
            }
            assertThat(writer.flush(Duration.ofSeconds(10))).isTrue();
        }
        assertThat(storage.transcripts().last(ROOM, 50, Long.MAX_VALUE)).hasSize(20);
        try (TranscriptWriter writer = TranscriptWriter.builder(storage.transcripts()).build()) {
            writer.record(ROOM, "bob", T0.plusSeconds(20), "m20", Message.text("after restart"), false);
            assertThat(writer.flush(Duration.ofSeconds(10))).isTrue();
            List<TranscriptRecord> history = writer.history(ROOM, 2, Long.MAX_VALUE);
            assertThat(history).extracting(TranscriptRecord::text).containsExactly("line 19", "after restart");
            assertThat(history.get(1).seq()).isEqualTo(history.get(0).seq() + 1);
        }
    }

    @Test
    void quotaCountsSurviveARestart() {
        QuotaStore quotas = storage.quotas();
        LocalDate monday = LocalDate.parse("2026-11-30");
        assertThat(quotas.used("draw", "group:1:user:2", monday)).isZero();
        quotas.record("draw", "group:1:user:2", monday, 3);
        quotas.record("draw", "group:1:user:9", monday, 1);
        storage.close(); // commits the writes behind
        storage = place.open();
        assertThat(storage.quotas().used("draw", "group:1:user:2", monday)).isEqualTo(3);
        assertThat(storage.quotas().used("draw", "group:1:user:2", monday.plusDays(1))).isZero();
        assertThat(storage.quotas().used("draw", "x".repeat(400), monday)).isZero();
    }

    @Test
    void migrationsRunOnceAndModulesBringTheirOwn() throws Exception {
        storage.close();
        storage = place.open(); // re-run: nothing to do, nothing breaks
        ClassLoader loader = getClass().getClassLoader();
        assertThat(storage.migrate("weather", loader, "db/weather-test")).isEqualTo(2);
        assertThat(storage.migrate("weather", loader, "db/weather-test")).isZero();
        storage.kv().namespace("weather").set("still", "works");
        try (Connection c = place.connect(); ResultSet rs = c.createStatement().executeQuery(
                "SELECT COUNT(*) FROM weather_forecast")) {
            rs.next();
            assertThat(rs.getInt(1)).isEqualTo(1);
        }
    }

    @Test
    void theShippedSchemaVersionIsTheNewestMigrationOfEveryDialect() throws Exception {
        for (Dialect d : Dialect.values()) {
            String folder = d.migrations.substring("classpath:".length());
            java.net.URL url = Storage.class.getClassLoader().getResource(folder);
            assertThat(url).as(folder).isNotNull();
            try (java.util.stream.Stream<java.nio.file.Path> files = java.nio.file.Files.list(java.nio.file.Path.of(url.toURI()))) {
                int newest = files.map(f -> f.getFileName().toString()).filter(n -> n.matches("V\\d+__.*\\.sql"))
                        .mapToInt(n -> Integer.parseInt(n.substring(1, n.indexOf("__")))).max().orElse(0);
                assertThat(Integer.toString(newest)).as(folder).isEqualTo(Schema.VERSION);
            }
        }
        storage.close();
        storage = place.open(); // a restart of an up-to-date database skips Flyway and works
        storage.kv().namespace("m").set("k", "v");
        assertThat(storage.kv().namespace("m").get("k")).isEqualTo("v");
    }

    @Test
    void aBrokenModuleMigrationIsAClearError() {
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> storage.migrate("broken", getClass().getClassLoader(), "db/broken-test"))
                .isInstanceOf(StorageException.class)
                .hasMessageContaining("migrations of 'broken'");
    }
}
