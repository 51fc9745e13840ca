package dev.pulsebus.transcript;

import dev.pulsebus.event.ChatRef;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/** An in-memory store that tests can watch (batch sizes), hold (a gate) and break (failures). */
final class RecordingStore implements TranscriptStore {

    final InMemoryTranscriptStore inner = new InMemoryTranscriptStore();
    final List<Integer> batchSizes = new CopyOnWriteArrayList<>();
    final AtomicInteger failNext = new AtomicInteger();
    /** Appends wait while {@link #hold()} is in force. */
    private volatile CountDownLatch gate = new CountDownLatch(0);

    void hold() {
        gate = new CountDownLatch(1);
    }

    void release() {
        gate.countDown();
    }

    @Override
    public void append(List<TranscriptRecord> batch) throws Exception {
        gate.await();
        if (failNext.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            throw new java.sql.SQLException("database is down (test)");
        }
        inner.append(batch);
        batchSizes.add(batch.size());
    }

    @Override
    public List<TranscriptRecord> last(ChatRef chat, int n, long beforeSeq) {
        return inner.last(chat, n, beforeSeq);
    }

    @Override
    public long retain(int keepPerChat, Instant cutoff) {
        return inner.retain(keepPerChat, cutoff);
    }

    @Override
    public long maxSeq() {
        return inner.maxSeq();
    }

    int stored() {
        return batchSizes.stream().mapToInt(Integer::intValue).sum();
    }
}
