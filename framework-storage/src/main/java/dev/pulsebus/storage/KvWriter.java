package dev.pulsebus.storage;

import dev.pulsebus.internal.FailureLog;
import dev.pulsebus.internal.WriterThread;
import dev.pulsebus.kv.KvException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The KV's group commit: one thread drains a bounded queue of writes and runs whatever has arrived (up
 * to {@code maxBatch}) in one transaction. While a transaction commits, new writes queue up for the
 * next, so throughput grows with the number of concurrent writers while every write's future completes
 * only after its own commit.
 *
 * <p>Overflow: {@link #submit} waits up to {@code overflowWait} for room, then fails the write with a
 * {@link KvException} and counts it ({@code pulsebus_kv_writes_rejected_total}). A failed transaction
 * fails every write in it (none of them was acknowledged); the next batch tries again, so the store
 * recovers by itself when the database does.
 *
 * <p>The same thread deletes expired rows every {@code sweepInterval}, in chunks of
 * {@link Dialect#DELETE_CHUNK} rows, each in its own short transaction; while idle it sleeps until then,
 * woken by the next write or by close.
 */
final class KvWriter {

    private static final Logger LOG = LoggerFactory.getLogger(KvWriter.class);
    private static final long SPIN_NANOS = 20_000;

    private final DataSource dataSource;
    private final Dialect dialect;
    private final Clock clock;
    private final ArrayBlockingQueue<KvWrite> queue;
    private final int maxBatch;
    private final long overflowWaitNanos;
    private final long sweepIntervalMillis;
    private final StorageHealth health;
    private final FailureLog failures = new FailureLog(LOG, "KV write batch");
    private final Thread thread;
    private volatile boolean closed;
    /** Set when close stopped waiting: the thread fails what is queued instead of committing it. */
    private volatile boolean abandoned;
    private long nextSweep;
    private @Nullable Session session; // the writer thread's own: statements stay prepared between batches

    final LongAdder writes = new LongAdder();
    final LongAdder batches = new LongAdder();
    /** Each committed transaction's time from its first statement to its commit; set with the meters. */
    private volatile io.micrometer.core.instrument.@Nullable Timer commitTimer;
    final LongAdder failed = new LongAdder();
    final LongAdder rejected = new LongAdder();
    final LongAdder expired = new LongAdder();

    KvWriter(DataSource dataSource, Dialect dialect, Clock clock, int capacity, int maxBatch,
             long overflowWaitNanos, long sweepIntervalMillis, StorageHealth health) {
        this.dataSource = dataSource;
        this.dialect = dialect;
        this.clock = clock;
        this.queue = new ArrayBlockingQueue<>(capacity);
        this.maxBatch = maxBatch;
        this.overflowWaitNanos = overflowWaitNanos;
        this.sweepIntervalMillis = sweepIntervalMillis;
        this.health = health;
        this.nextSweep = clock.millis() + sweepIntervalMillis;
        this.thread = Thread.ofPlatform().daemon().name("pulsebus-kv-writer").start(this::run);
    }

    /** Queues {@code write}; its future fails at once when the store is closed or the queue stays full. */
    <W extends KvWrite> W submit(W write) {
        if (closed) {
            write.future().completeExceptionally(new KvException("KV store is closed"));
            return write;
        }
        boolean queued;
        try {
            queued = queue.offer(write) || queue.offer(write, overflowWaitNanos, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            queued = false;
        }
        if (queued && closed && !thread.isAlive() && queue.remove(write)) {
            write.future().completeExceptionally(new KvException("KV store is closed"));
        } else if (!queued) {
            rejected.increment();
            write.future().completeExceptionally(new KvException("KV write queue is full (" + queue.size()
                    + " pending): the database is not keeping up; the write was not made"));
        }
        return write;
    }

    int pending() {
        return queue.size();
    }

    /** The writer thread, for tests that watch it wait and stop. */
    Thread thread() {
        return thread;
    }

    private void run() {
        WriterThread.mark();
        List<KvWrite> batch = new ArrayList<>(maxBatch);
        while (true) {
            if (abandoned) {
                failQueued();
                dropSession();
                return;
            }
            KvWrite first = spinPoll();
            if (first == null && !closed) {
                // Idle: sleep until the next sweep is due; a write or close (KvWrite.Wake) ends the wait.
                long untilSweep = Math.min(sweepIntervalMillis, Math.max(1, nextSweep - clock.millis()));
                try {
                    first = queue.poll(untilSweep, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    first = null;
                }
            }
            if (first == null || first == KvWrite.Wake.INSTANCE) {
                if (closed && queue.isEmpty()) {
                    dropSession();
                    return;
                }
                maybeSweep();
                continue;
            }
            batch.add(first);
            queue.drainTo(batch, maxBatch - 1);
            commit(batch);
            batch.clear();
        }
    }

    private void commit(List<KvWrite> batch) {
        try {
            health.check(); // a SQLite file deleted while open: what it takes is gone at the next start
            if (session == null) {
                session = new Session(dataSource.getConnection());
                session.connection.setAutoCommit(false);
            }
            long started = System.nanoTime();
            KvTransaction tx = new KvTransaction(session, dialect, clock.millis());
            try {
                for (KvWrite w : batch) {
                    w.apply(tx);
                }
                tx.commit();
            } catch (SQLException | RuntimeException e) {
                tx.rollbackQuietly();
                throw e;
            }
            io.micrometer.core.instrument.Timer timer = commitTimer;
            if (timer != null) {
                timer.record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
            }
        } catch (SQLException | RuntimeException e) {
            dropSession();
            failed.add(batch.size());
            health.failed(e);
            failures.failed(e, "committing " + batch.size() + " writes");
            KvException error = new KvException("KV write failed, not stored: " + e.getMessage(), e);
            for (KvWrite w : batch) {
                KvWrite.fail(w.future(), error);
            }
            return;
        }
        health.succeeded();
        batches.increment();
        writes.add(batch.size());
        for (KvWrite w : batch) {
            w.committed();
        }
    }

    private void dropSession() {
        if (session != null) {
            session.close();
            session = null;
        }
    }

    /**
     * Polls without parking for a few microseconds: a caller that awaits each write submits its next one
     * right after its future completes, and waking a parked thread costs more than the wait.
     */
    private @Nullable KvWrite spinPoll() {
        long deadline = System.nanoTime() + SPIN_NANOS;
        do {
            KvWrite w = queue.poll();
            if (w != null) {
                return w;
            }
            Thread.onSpinWait();
        } while (System.nanoTime() < deadline);
        return null;
    }

    private void maybeSweep() {
        long now = clock.millis();
        if (now < nextSweep) {
            return;
        }
        nextSweep = now + sweepIntervalMillis;
        sweepExpired(now);
    }

    /** Deletes expired rows now; returns how many. */
    long sweepExpired(long now) {
        String sql = dialect.chunkedDelete("pulsebus_kv", "ns, k", "expires_at <= ?");
        long total = 0;
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            c.setAutoCommit(true);
            int n;
            do {
                ps.setLong(1, now);
                n = ps.executeUpdate();
                total += n;
            } while (n >= Dialect.DELETE_CHUNK && !closed);
        } catch (SQLException e) {
            health.failed(e);
            failures.failed(e, "deleting expired keys");
        }
        expired.add(total);
        return total;
    }

    /** Times each commit with {@code timer} from now on. */
    void commitTimer(io.micrometer.core.instrument.Timer timer) {
        this.commitTimer = timer;
    }

    /**
     * Stops taking writes and commits what is queued, waiting at most {@code timeoutNanos} for that (the
     * database may be down). Writes still queued then fail their futures: none of them was acknowledged,
     * so nothing acknowledged is lost. A commit in flight at that moment still completes its own writes.
     */
    void close(long timeoutNanos) {
        closed = true;
        // Ends an idle wait. When the queue is full the writer is busy draining it and sees closed when done.
        queue.offer(KvWrite.Wake.INSTANCE);
        try {
            thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(timeoutNanos)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            abandoned = true;
            LOG.warn("KV writes not committed within the shutdown timeout ({} queued): failing them, not stored",
                    queue.size());
        }
        failQueued();
    }

    private void failQueued() {
        for (KvWrite w; (w = queue.poll()) != null; ) {
            if (w == KvWrite.Wake.INSTANCE) {
                continue;
            }
            KvWrite.fail(w.future(), new KvException("KV store closed before the write was made: not stored"));
        }
    }
}
