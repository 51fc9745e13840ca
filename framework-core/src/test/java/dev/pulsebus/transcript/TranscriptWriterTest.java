package dev.pulsebus.transcript;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pulsebus.event.ChatRef;
import dev.pulsebus.event.Message;
import dev.pulsebus.testing.Await;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS) // a broken bus or writer hangs rather than fails: make it fail
class TranscriptWriterTest {

    private static final ChatRef ROOM = ChatRef.group("test", "room-1");
    private static final ChatRef OTHER = ChatRef.group("test", "room-2");
    private final RecordingStore store = new RecordingStore();
    private final List<TranscriptWriter> writers = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        store.release();
        for (TranscriptWriter w : writers) {
            w.close();
        }
    }

    private TranscriptWriter writer(TranscriptWriter.Builder b) throws Exception {
        TranscriptWriter w = b.build();
        writers.add(w);
        return w;
    }

    private static TranscriptRecord record(TranscriptWriter w, ChatRef chat, String text) {
        return w.record(chat, "ann", Instant.now(), "", Message.text(text), false);
    }

    @Test
    void aFullBatchIsWrittenAtOnceInOneTransaction() throws Exception {
        TranscriptWriter w = writer(TranscriptWriter.builder(store).batchSize(10).flushInterval(Duration.ofHours(1)));
        for (int i = 0; i < 10; i++) {
            record(w, ROOM, "m" + i);
        }
        awaitStored(10);
        assertThat(store.batchSizes).containsExactly(10);
    }

    @Test
    void aPartialBatchIsWrittenAfterTheFlushInterval() throws Exception {
        TranscriptWriter w = writer(TranscriptWriter.builder(store).batchSize(1000).flushInterval(Duration.ofMillis(30)));
        record(w, ROOM, "a");
        record(w, ROOM, "b");
        awaitStored(2);
        assertThat(store.batchSizes).containsExactly(2);
    }

    /** With nothing buffered the writer parks without a timer (no tick every interval); a record wakes it. */
    @Test
    void anIdleWriterSleepsUntilTheNextRecord() throws Exception {
        TranscriptWriter w = writer(TranscriptWriter.builder(store).batchSize(1000).flushInterval(Duration.ofMillis(30)));
        record(w, ROOM, "a");
        awaitStored(1);
        assertThat(Await.until(Duration.ofSeconds(10), () -> w.writerThread().getState() == Thread.State.WAITING))
                .as("parked without a timeout").isTrue();

        record(w, ROOM, "b");

        awaitStored(2);
        assertThat(store.batchSizes).containsExactly(1, 1);
    }

    @Test
    void closeWritesEverythingBuffered() throws Exception {
        TranscriptWriter w = TranscriptWriter.builder(store).batchSize(1000).flushInterval(Duration.ofHours(1)).build();
        for (int i = 0; i < 25; i++) {
            record(w, ROOM, "m" + i);
        }
        w.close();
        assertThat(store.stored()).isEqualTo(25);
        assertThatThrownBy(() -> record(w, ROOM, "late")).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aDurableRecordIsWrittenAtOnceNotAtTheFlushInterval() throws Exception {
        TranscriptWriter w = writer(TranscriptWriter.builder(store).batchSize(1000).flushInterval(Duration.ofHours(1)));
        TranscriptRecord r = w.recordDurably(ROOM, "ann", Instant.now(), "", Message.text("now"), false)
                .toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertThat(store.inner.last(ROOM, 10, Long.MAX_VALUE)).containsExactly(r);
    }

    @Test
    void durableWaitersCompleteOnCommitAndShareBatches() throws Exception {
        TranscriptWriter w = writer(TranscriptWriter.builder(store).batchSize(50).flushInterval(Duration.ofMillis(20)));
        store.hold();
        List<CompletionStage<TranscriptRecord>> acks = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            acks.add(w.recordDurably(ROOM, "ann", Instant.now(), "", Message.text("m" + i), false));
        }
        assertThat(acks.get(0).toCompletableFuture().isDone()).isFalse(); // not stored yet: not acknowledged
        store.release();
        for (CompletionStage<TranscriptRecord> ack : acks) {
            TranscriptRecord r = ack.toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertThat(store.inner.last(ROOM, 1000, Long.MAX_VALUE)).contains(r);
        }
        assertThat(store.batchSizes.size()).isLessThanOrEqualTo(4); // 100 waiters, a handful of commits
    }

    @Test
    void whatFollowsADurableCommitRunsOnTheWriterInSeqOrderBeforeItsFutureCompletes() throws Exception {
        TranscriptWriter w = writer(TranscriptWriter.builder(store).batchSize(3).flushInterval(Duration.ofMillis(20)));
        List<Long> followed = Collections.synchronizedList(new ArrayList<>());
        List<String> threads = Collections.synchronizedList(new ArrayList<>());
        store.hold();
        List<CompletionStage<List<Long>>> acks = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            int n = i;
            acks.add(w.recordDurably(ROOM, "ann", Instant.now(), "", Message.text("m" + i), false, r -> {
                if (n == 4) {
                    throw new IllegalStateException("follow-up failed");
                }
                followed.add(r.seq());
                threads.add(Thread.currentThread().getName());
                return List.copyOf(followed); // what had followed when this one's future completed
            }));
        }
        assertThat(followed).as("nothing follows before the commit").isEmpty();
        store.release();
        for (int i = 0; i < 10; i++) {
            if (i == 4) {
                int at = i;
                assertThatThrownBy(() -> acks.get(at).toCompletableFuture().get(10, TimeUnit.SECONDS))
                        .hasMessageContaining("follow-up failed");
                continue;
            }
            List<Long> then = acks.get(i).toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertThat(then.get(then.size() - 1)).as("its own follow-up ran before it completed")
                    .isEqualTo(store.inner.last(ROOM, 100, Long.MAX_VALUE).get(i).seq());
        }
        assertThat(followed).hasSize(9).isSorted();
        assertThat(threads).allMatch(t -> t.equals(threads.get(0))).hasSize(9); // the writer's, one thread
    }

    @Test
    void fullBufferDropsTheOldestCountsItAndFailsItsWaiter() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        TranscriptWriter w = writer(TranscriptWriter.builder(store).capacity(4).batchSize(1)
                .flushInterval(Duration.ofMillis(1)).overflowWait(Duration.ofMillis(5)).meterRegistry(registry));
        store.hold();
        record(w, ROOM, "in flight");          // taken by the writer, which now waits on the store
        awaitWriting(w);
        AtomicBoolean followed = new AtomicBoolean();
        CompletionStage<TranscriptRecord> oldest = w.recordDurably(ROOM, "ann", Instant.now(), "", Message.text("oldest"),
                false, r -> {
                    followed.set(true);
                    return r;
                });
        for (int i = 0; i < 3; i++) {
            record(w, ROOM, "b" + i);          // buffer now full: 4 waiting
        }
        long start = System.nanoTime();
        record(w, ROOM, "newest");             // waits ~5 ms, then drops "oldest"
        assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(4));

        assertThat(w.dropped()).isEqualTo(1);
        assertThat(registry.get("pulsebus.transcripts.dropped").functionCounter().count()).isEqualTo(1);
        assertThatThrownBy(() -> oldest.toCompletableFuture().get(1, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).hasMessageContaining("dropped before it was stored");
        assertThat(followed).as("nothing follows a record that was not stored").isFalse();
        store.release();
        assertThat(w.flush(Duration.ofSeconds(10))).isTrue();
        assertThat(store.inner.last(ROOM, 10, Long.MAX_VALUE)).extracting(TranscriptRecord::text)
                .containsExactly("in flight", "b0", "b1", "b2", "newest");
    }

    @Test
    void historyMergesBufferedAndStoredRecordsOldestFirst() throws Exception {
        TranscriptWriter w = writer(TranscriptWriter.builder(store).batchSize(2).flushInterval(Duration.ofMillis(1)));
        record(w, ROOM, "s1");
        record(w, OTHER, "elsewhere");
        record(w, ROOM, "s2");
        assertThat(w.flush(Duration.ofSeconds(10))).isTrue();
        store.hold();
        record(w, ROOM, "b1");
        record(w, ROOM, "b2");
        record(w, ROOM, "b3");

        assertThat(w.history(ROOM, 10, Long.MAX_VALUE)).extracting(TranscriptRecord::text)
                .containsExactly("s1", "s2", "b1", "b2", "b3");
        assertThat(w.history(ROOM, 2, Long.MAX_VALUE)).extracting(TranscriptRecord::text).containsExactly("b2", "b3");
        long b2 = w.history(ROOM, 2, Long.MAX_VALUE).get(0).seq();
        assertThat(w.history(ROOM, 2, b2)).extracting(TranscriptRecord::text).containsExactly("s2", "b1");
        store.release();
        assertThat(w.flush(Duration.ofSeconds(10))).isTrue();
        assertThat(w.history(ROOM, 10, Long.MAX_VALUE)).extracting(TranscriptRecord::text)
                .containsExactly("s1", "s2", "b1", "b2", "b3");
    }

    @Test
    void aFailingStoreLosesNothingAndRecovers() throws Exception {
        TranscriptWriter w = writer(TranscriptWriter.builder(store).batchSize(5).flushInterval(Duration.ofMillis(5)));
        store.failNext.set(3);
        for (int i = 0; i < 5; i++) {
            record(w, ROOM, "m" + i);
        }
        assertThat(w.flush(Duration.ofSeconds(10))).isTrue();
        assertThat(w.healthy()).isTrue();
        assertThat(store.inner.last(ROOM, 10, Long.MAX_VALUE)).hasSize(5);
    }

    @Test
    void aDurableRecordWhoseCommitFailsIsAnsweredAtOnceKeptAndFollowedUpWhenStored() throws Exception {
        TranscriptWriter w = writer(TranscriptWriter.builder(store).flushInterval(Duration.ofMillis(1)));
        store.failNext.set(Integer.MAX_VALUE);
        List<Long> followed = new java.util.concurrent.CopyOnWriteArrayList<>();
        var answer = w.recordDurably(ROOM, "ann", Instant.now(), "", Message.text("m"), false, r -> {
            followed.add(r.seq());
            return r;
        }).toCompletableFuture();

        assertThatThrownBy(() -> answer.get(10, TimeUnit.SECONDS)).as("not kept waiting for the store")
                .cause().isInstanceOf(NotYetStoredException.class)
                .hasMessageContaining("the transcript store is failing (SQLException): record 1 is kept and stored once");
        assertThat(followed).isEmpty();

        store.failNext.set(0);
        assertThat(w.flush(Duration.ofSeconds(10))).isTrue();
        assertThat(store.inner.last(ROOM, 10, Long.MAX_VALUE)).extracting(TranscriptRecord::text).containsExactly("m");
        assertThat(followed).as("what follows the commit still runs").containsExactly(1L);
    }

    @Test
    void oneFailedCommitIsRetriedBeforeTheStoreCountsAsFailing() throws Exception {
        TranscriptWriter w = writer(TranscriptWriter.builder(store).flushInterval(Duration.ofMillis(1)));
        store.failNext.set(1); // one stale connection, say

        TranscriptRecord r = w.recordDurably(ROOM, "ann", Instant.now(), "", Message.text("m"), false)
                .toCompletableFuture().get(10, TimeUnit.SECONDS);

        assertThat(r.text()).isEqualTo("m");
        assertThat(w.healthy()).isTrue();
        assertThat(store.failNext.get()).as("the first commit did fail").isZero();
    }

    @Test
    void unhealthyWhileTheStoreFails() throws Exception {
        TranscriptWriter w = writer(TranscriptWriter.builder(store).batchSize(1).flushInterval(Duration.ofMillis(1)));
        store.failNext.set(Integer.MAX_VALUE);
        record(w, ROOM, "m");
        Await.until(Duration.ofSeconds(10), Duration.ofMillis(1), () -> !w.healthy());
        assertThat(w.healthy()).isFalse();
        assertThat(w.history(ROOM, 10, Long.MAX_VALUE)).extracting(TranscriptRecord::text).containsExactly("m");
        store.failNext.set(0);
        assertThat(w.flush(Duration.ofSeconds(10))).isTrue();
        assertThat(w.healthy()).isTrue();
    }

    @Test
    void retentionKeepsTheNewestPerChatAndDropsOldRows() throws Exception {
        Instant now = Instant.parse("2026-11-30T10:00:00Z");
        Clock clock = Clock.fixed(now, ZoneOffset.UTC);
        TranscriptWriter w = writer(TranscriptWriter.builder(store).batchSize(100).flushInterval(Duration.ofMillis(1))
                .keepPerChat(3).maxAge(Duration.ofDays(1)).clock(clock));
        w.record(OTHER, "ann", now.minus(Duration.ofDays(2)), "", Message.text("too old"), false);
        w.record(OTHER, "ann", now.minus(Duration.ofHours(1)), "", Message.text("recent"), false);
        for (int i = 0; i < 5; i++) {
            w.record(ROOM, "ann", now, "", Message.text("m" + i), false);
        }
        assertThat(w.flush(Duration.ofSeconds(10))).isTrue();

        assertThat(w.runRetention()).isEqualTo(3);
        assertThat(w.history(ROOM, 10, Long.MAX_VALUE)).extracting(TranscriptRecord::text).containsExactly("m2", "m3", "m4");
        assertThat(w.history(OTHER, 10, Long.MAX_VALUE)).extracting(TranscriptRecord::text).containsExactly("recent");
    }

    @Test
    void aNewWriterContinuesTheStoresSequence() throws Exception {
        TranscriptWriter first = TranscriptWriter.builder(store).build();
        long last = record(first, ROOM, "a").seq();
        first.close();
        TranscriptWriter second = writer(TranscriptWriter.builder(store));
        assertThat(record(second, ROOM, "b").seq()).isEqualTo(last + 1);
    }

    @Test
    @org.junit.jupiter.api.Timeout(30)
    void closeWhileTheStoreIsDownSpillsAndTheNextWriterStoresTheSpill(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        java.nio.file.Path spill = dir.resolve("spill");
        store.failNext.set(Integer.MAX_VALUE);
        TranscriptWriter w = TranscriptWriter.builder(store).batchSize(2).flushInterval(Duration.ofMillis(1))
                .spillDirectory(spill).build();
        record(w, ROOM, "a");
        record(w, OTHER, "b");
        var durable = w.recordDurably(ROOM, "ann", Instant.now(), "m-3", Message.text("c"), true).toCompletableFuture();

        w.close(Duration.ofMillis(300)); // returns although the store never recovers

        assertThatThrownBy(durable::get).as("not acknowledged").hasMessageContaining("the transcript store is failing");
        assertThat(store.stored()).isZero();
        List<java.nio.file.Path> files = new SpillJournal(spill).files();
        assertThat(files).singleElement();
        assertThat(SpillJournal.read(files.get(0))).extracting(TranscriptRecord::text).containsExactly("a", "b", "c");

        store.failNext.set(0);
        TranscriptWriter next = writer(TranscriptWriter.builder(store).spillDirectory(spill));
        assertThat(store.inner.last(ROOM, 10, Long.MAX_VALUE)).extracting(TranscriptRecord::text, TranscriptRecord::seq,
                TranscriptRecord::outbound, TranscriptRecord::messageId)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("a", 1L, false, ""),
                        org.assertj.core.groups.Tuple.tuple("c", 3L, true, "m-3"));
        assertThat(store.inner.last(OTHER, 10, Long.MAX_VALUE)).extracting(TranscriptRecord::text).containsExactly("b");
        assertThat(new SpillJournal(spill).files()).isEmpty();
        assertThat(record(next, ROOM, "d").seq()).isEqualTo(4);
    }

    @Test
    @org.junit.jupiter.api.Timeout(30)
    void aBatchStuckInTheStoreIsSpilledAndStoredOnceWhenItsCommitLandsLate(
            @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Path spill = dir.resolve("spill");
        store.hold(); // the append blocks, as on a connection to a database that went away
        TranscriptWriter w = TranscriptWriter.builder(store).batchSize(1).flushInterval(Duration.ofMillis(1))
                .spillDirectory(spill).build();
        var stuck = w.recordDurably(ROOM, "ann", Instant.now(), "", Message.text("stuck"), false).toCompletableFuture();
        awaitWriting(w);
        record(w, ROOM, "queued");

        w.close(Duration.ofMillis(200));
        assertThatThrownBy(stuck::get).as("not acknowledged: its commit may or may not land")
                .cause().isInstanceOf(NotYetStoredException.class)
                .hasMessageContaining("is spilled to disk and stored at the next start");
        store.release(); // the stuck commit lands after all
        Await.until(Duration.ofSeconds(10), Duration.ofMillis(1), () -> store.stored() >= 1);

        writer(TranscriptWriter.builder(store).spillDirectory(spill));
        assertThat(store.inner.last(ROOM, 10, Long.MAX_VALUE)).extracting(TranscriptRecord::text)
                .containsExactly("stuck", "queued");
    }

    @Test
    void unreadableSpillLinesAreSetAsideAndTheRestIsStored(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        TranscriptRecord good = new TranscriptRecord(7, ROOM, "ann", Instant.parse("2026-12-01T10:00:00.123456789Z"),
                "m-7", Message.text("kept"), false);
        java.nio.file.Files.writeString(dir.resolve("transcripts-7.jsonl"),
                SpillJournal.line(good) + "\n{\"seq\": 8, \"platform\"\n");

        TranscriptWriter w = writer(TranscriptWriter.builder(store).spillDirectory(dir));

        assertThat(store.inner.last(ROOM, 10, Long.MAX_VALUE)).containsExactly(good);
        assertThat(new SpillJournal(dir).files()).isEmpty();
        try (var files = java.nio.file.Files.list(dir)) {
            java.nio.file.Path aside = files.filter(f -> f.getFileName().toString().startsWith("transcripts-7.jsonl.corrupt-"))
                    .findFirst().orElseThrow();
            assertThat(java.nio.file.Files.readString(aside)).isEqualTo("{\"seq\": 8, \"platform\"\n");
        }
        assertThat(record(w, ROOM, "next").seq()).isEqualTo(8);
    }

    private void awaitStored(int n) throws Exception {
        Await.until(Duration.ofSeconds(10), Duration.ofMillis(1), () -> store.stored() >= n);
        assertThat(store.stored()).isEqualTo(n);
    }

    private static void awaitWriting(TranscriptWriter w) throws Exception {
        Await.until(Duration.ofSeconds(10), Duration.ofMillis(1), () -> w.buffered() <= 0);
    }
}
