package dev.pulsebus.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pulsebus.event.ChatRef;
import dev.pulsebus.event.Message;
import dev.pulsebus.transcript.TranscriptRecord;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

class CommitOrderTest {

    private static TranscriptRecord rec(long seq) {
        return new TranscriptRecord(seq, ChatRef.group("http", "r"), "u", Instant.EPOCH, "m" + seq, Message.text("t"), false);
    }

    @Test
    void whatFollowsACommitRunsInTheOrderTheRecordsWereGivenWhicheverCommitIsReportedFirst() throws Exception {
        CommitOrder order = new CommitOrder();
        List<Long> ran = new ArrayList<>();
        List<CompletableFuture<TranscriptRecord>> stored = new ArrayList<>();
        List<CompletionStage<Long>> results = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            CompletableFuture<TranscriptRecord> f = new CompletableFuture<>();
            stored.add(f);
            results.add(order.commit(() -> f, r -> {
                ran.add(r.seq());
                return r.seq();
            }));
        }
        stored.get(2).complete(rec(3));
        stored.get(1).complete(rec(2));
        assertThat(ran).as("both wait for the first").isEmpty();
        assertThat(results.get(1).toCompletableFuture()).isNotDone();
        stored.get(0).complete(rec(1));
        assertThat(ran).containsExactly(1L, 2L, 3L);
        assertThat(results.get(2).toCompletableFuture().get()).isEqualTo(3L);
        stored.get(3).complete(rec(4));
        assertThat(ran).containsExactly(1L, 2L, 3L, 4L);
    }

    @Test
    void aFailedCommitOrAFailingFollowUpTakesItsTurnWithoutHoldingUpTheRest() {
        CommitOrder order = new CommitOrder();
        List<Long> ran = new ArrayList<>();
        CompletableFuture<TranscriptRecord> first = new CompletableFuture<>();
        CompletableFuture<TranscriptRecord> second = new CompletableFuture<>();
        CompletableFuture<TranscriptRecord> third = new CompletableFuture<>();
        CompletionStage<Long> a = order.commit(() -> first, r -> {
            ran.add(r.seq());
            return r.seq();
        });
        CompletionStage<Long> b = order.commit(() -> second, r -> {
            throw new IllegalStateException("follow-up failed");
        });
        CompletionStage<Long> c = order.commit(() -> third, r -> {
            ran.add(r.seq());
            return r.seq();
        });
        third.complete(rec(3));
        second.complete(rec(2));
        first.completeExceptionally(new IllegalStateException("not stored"));
        assertThat(ran).containsExactly(3L);
        assertThatThrownBy(() -> a.toCompletableFuture().get()).isInstanceOf(ExecutionException.class)
                .hasMessageContaining("not stored");
        assertThatThrownBy(() -> b.toCompletableFuture().get()).hasMessageContaining("follow-up failed");
        assertThat(c.toCompletableFuture().join()).isEqualTo(3L);
    }

    @Test
    void aStoreThatThrowsTakesNoTurn() {
        CommitOrder order = new CommitOrder();
        assertThatThrownBy(() -> order.commit(() -> {
            throw new IllegalStateException("transcript writer is closed");
        }, r -> r)).hasMessageContaining("closed");
        List<Long> ran = new ArrayList<>();
        order.commit(() -> CompletableFuture.completedFuture(rec(7)), r -> ran.add(r.seq()));
        assertThat(ran).containsExactly(7L);
    }
}
