package dev.pulsebus.telegram;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The handled watermark: out-of-order settling, the ring's reuse and its bound, the poller's wait. */
class WatermarkTest {

    /** Hands {@code updateId}, returning its sequence. */
    private static long hand(Watermark w, long updateId) {
        long sequence = w.nextSequence();
        assertThat(sequence).isPositive();
        w.hand(updateId);
        return sequence;
    }

    @Test
    void staysAtTheOldestUpdateNotSettledWhateverSettlesAfterIt() {
        Watermark w = new Watermark(10);
        assertThat(w.watermark()).isEqualTo(10);
        long a = hand(w, 10);
        long b = hand(w, 11);
        w.pass(12); // a bad update: nothing waits for it
        long c = hand(w, 14); // Telegram's ids may leave gaps
        assertThat(w.taken(12)).isTrue();
        assertThat(w.taken(15)).isFalse();
        w.settle(b);
        w.settle(c);
        assertThat(w.watermark()).isEqualTo(10);
        w.settle(a);
        assertThat(w.watermark()).as("past every update taken").isEqualTo(15);
        w.settle(a); // settling twice changes nothing
        assertThat(w.watermark()).isEqualTo(15);
    }

    @Test
    void reusesItsSlotsAndRefusesAnUpdateWhenAllWait() {
        Watermark w = new Watermark(1);
        long id = 1;
        for (int round = 0; round < 3; round++) { // the slots of settled updates are taken again
            for (int i = 0; i < Watermark.SIZE; i++) {
                w.settle(hand(w, id++));
            }
        }
        assertThat(w.watermark()).isEqualTo(id);
        long first = hand(w, id);
        for (int i = 1; i < Watermark.SIZE; i++) {
            w.settle(hand(w, id + i));
        }
        assertThat(w.nextSequence()).as("SIZE wait behind the first").isEqualTo(-1);
        assertThat(w.watermark()).isEqualTo(id);
        w.settle(first);
        assertThat(w.watermark()).isEqualTo(id + Watermark.SIZE);
        assertThat(w.nextSequence()).isPositive();
    }

    @Test
    void thePollerWaitsUntilTheOldestSettlesOrItsTimeIsUp() throws Exception {
        Watermark w = new Watermark(1);
        long oldest = hand(w, 1);
        long newer = hand(w, 2);
        w.settle(newer);
        CompletableFuture<Void> waited = CompletableFuture.runAsync(() -> {
            try {
                w.awaitPast(1, TimeUnit.SECONDS.toMillis(30));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        Thread.sleep(100);
        assertThat(waited).as("the watermark has not moved").isNotDone();
        Thread.ofVirtual().start(() -> w.settle(oldest));
        waited.get(10, TimeUnit.SECONDS);
        w.awaitPast(3, 1); // nothing settles: it gives up after its time
        assertThat(w.watermark()).isEqualTo(3);
    }
}
