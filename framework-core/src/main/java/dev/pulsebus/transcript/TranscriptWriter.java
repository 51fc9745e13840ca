package dev.pulsebus.transcript;

import dev.pulsebus.internal.FailureLog;
import dev.pulsebus.internal.Require;
import dev.pulsebus.event.ChatRef;
import dev.pulsebus.event.Message;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records messages without making their senders wait for a database: {@link #record} puts the record in
 * a bounded in-memory buffer and returns; one background thread drains the buffer into the
 * {@link TranscriptStore} in batches (when {@code batchSize} records wait, or {@code flushInterval} after
 * the last write, and on {@link #close()}), each batch one multi-row transaction.
 *
 * <h2>Durability</h2>
 * A record is durable once its batch has committed: at most {@code flushInterval} plus one batch's write
 * after {@link #record} returns, in steady state. A {@code kill -9} loses exactly the records not yet
 * committed. A caller that must know (an HTTP API that acknowledges a message only once stored) uses
 * {@link #recordDurably}, whose future completes when the record's batch commits: such callers share the
 * writer's batches instead of forcing a commit each.
 *
 * <h2>Full buffer</h2>
 * When {@code capacity} records wait, a producer waits up to {@code overflowWait} for room; then the
 * oldest waiting record is dropped to make room (its durable future, if any, fails), counted in
 * {@code pulsebus_transcripts_dropped_total} and warned about at most every 10 s.
 *
 * <h2>Store failures</h2>
 * A batch that fails to commit (database down, disk full) is retried with backoff (50 ms doubling to 1 s),
 * in order, and stays readable through {@link #history}; nothing acknowledged is lost. {@link #healthy()} is
 * false meanwhile, from the second failure in a row (a first one may be a stale connection the retry
 * replaces); from then on, callers of {@link #recordDurably} are answered at once instead of waiting.
 *
 * <h2>Closing while the store is down</h2>
 * {@link #close(Duration)} waits at most its timeout for the buffer to be written. What is still not
 * committed then is spilled to the {@linkplain Builder#spillDirectory spill directory} (one JSON line per
 * record, forced to disk) and its durable futures fail; the next writer built on that directory writes the
 * spilled records to the store before {@link Builder#build} returns, keeping their seq (a record the store
 * already holds is skipped). Without a spill directory, such records are lost, and the count is logged.
 *
 * <h2>Retention</h2>
 * Every {@code retentionInterval}, a separate thread asks the store to keep the newest
 * {@code keepPerChat} records of each chat and none older than {@code maxAge} ({@link TranscriptRetention}).
 */
public final class TranscriptWriter implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(TranscriptWriter.class);
    private static final long WARN_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);
    /** The wait before the first retry of a failed batch; each next wait doubles. */
    private static final long FIRST_RETRY_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    /**
     * The longest wait between retries of a failed batch: the store's recovery is noticed within it (says
     * are refused while the writer is unhealthy), and one attempt a second costs a down database nothing.
     */
    private static final long MAX_RETRY_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final TranscriptStore store;
    private final int capacity;
    private final int batchSize;
    private final long flushIntervalNanos;
    private final long overflowWaitNanos;
    private final @Nullable MeterRegistry registry;
    private final List<Meter> meters = new ArrayList<>();

    /** Waiting records: a {@link TranscriptRecord}, or a {@link Durable} when someone waits for it. */
    private final ConcurrentLinkedQueue<Object> buffer = new ConcurrentLinkedQueue<>();
    private final AtomicInteger buffered = new AtomicInteger();
    private final AtomicLong seq;
    private final java.util.function.@Nullable LongSupplier seqSource;
    private final LongAdder written = new LongAdder();
    private final LongAdder dropped = new LongAdder();
    private final LongAdder batches = new LongAdder();
    /** Each stored batch's append, set with the meters. */
    private volatile io.micrometer.core.instrument.@Nullable Timer batchTimer;
    private final LongAdder failures = new LongAdder();
    /** The batch being written: neither in the buffer nor yet in the store, still visible to history. */
    private volatile List<TranscriptRecord> writing = List.of();
    /** Who waits for {@link #writing}'s commit: failed by a close that gives up on it. */
    private volatile List<Durable> writingWaiters = List.of();
    private volatile boolean healthy = true;
    private volatile boolean closing;
    /** Set while the writer parks with nothing buffered, untimed: the next record wakes it. */
    private volatile boolean idle;
    /** Set when close gave up waiting: the writer stops retrying, what it holds is spilled instead. */
    private volatile boolean abandoned;
    private final @Nullable SpillJournal spill;
    private final FailureLog dropWarnings = FailureLog.warning(LOG, Duration.ofNanos(WARN_INTERVAL_NANOS));
    private final Thread writer;
    private final TranscriptRetention retention;
    private final AtomicLong flushRequests = new AtomicLong();
    /**
     * Held while a record takes its seq and enters the buffer, so the buffer (and so every batch and every
     * commit) is in seq order: a reader that saw seq n committed has seen every lower one of this writer.
     */
    private final Object order = new Object();
    /** Held by the writer while it moves records out of the buffer, and by readers of buffer and batch. */
    private final Object handover = new Object();

    /**
     * A record someone waits for: {@code then} runs on the writer once it is committed, and {@code answer}
     * completes with its result. {@code answer} may fail earlier with a {@link NotYetStoredException}, when
     * the store is found failing (its batch failed twice in a row); the record is still retried and
     * {@code then} still runs once it commits.
     */
    private record Durable(TranscriptRecord record, Function<? super TranscriptRecord, ?> then,
                           CompletableFuture<Object> answer) {
        void committed() {
            Object value;
            try {
                value = then.apply(record);
            } catch (Throwable t) {
                answer.completeExceptionally(t);
                return;
            }
            answer.complete(value);
        }
    }

    private TranscriptWriter(Builder b) throws Exception {
        this.store = b.store;
        this.capacity = b.capacity;
        this.batchSize = b.batchSize;
        this.flushIntervalNanos = b.flushInterval.toNanos();
        this.overflowWaitNanos = b.overflowWait.toNanos();
        this.registry = b.meterRegistry;
        this.spill = b.spillDirectory == null ? null : new SpillJournal(b.spillDirectory);
        if (spill != null) {
            spill.replay(store, store.maxSeq(), batchSize); // before any new record takes a seq
        }
        this.seq = new AtomicLong(store.maxSeq());
        this.seqSource = b.seqSource;
        bindMeters();
        this.writer = Thread.ofPlatform().daemon().name("pulsebus-transcript-writer").start(this::writeLoop);
        this.retention = new TranscriptRetention(store, b.keepPerChat, b.maxAge, b.clock, b.retentionInterval);
    }

    public static Builder builder(TranscriptStore store) {
        return new Builder(store);
    }

    // ------------------------------------------------------------------ producers

    /** Buffers a record and returns at once; the record is written in the next batch. */
    public TranscriptRecord record(ChatRef chat, String userId, Instant time, String messageId, Message message,
                                   boolean outbound) {
        synchronized (order) {
            TranscriptRecord r = new TranscriptRecord(nextSeq(), chat, userId, time, messageId, message, outbound);
            enqueue(r);
            return r;
        }
    }

    /** The next record's seq; called holding {@link #order}. */
    private long nextSeq() {
        java.util.function.LongSupplier source = seqSource;
        if (source == null) {
            return seq.incrementAndGet();
        }
        long next = source.getAsLong();
        seq.set(next); // flush waits for what was recorded before it: the newest seq taken here
        return next;
    }

    /**
     * Like {@link #record}, with a future that completes when the record's batch has committed. A durable
     * record is written at once (not at the flush interval); durable records that arrive while a batch
     * commits share the next batch.
     */
    public CompletionStage<TranscriptRecord> recordDurably(ChatRef chat, String userId, Instant time,
                                                           String messageId, Message message, boolean outbound) {
        return recordDurably(chat, userId, time, messageId, message, outbound, Function.identity());
    }

    /**
     * {@link #recordDurably(ChatRef, String, Instant, String, Message, boolean)} with {@code then} applied to
     * the committed record on the writer's thread, in seq order, before the returned future completes with
     * its result: what must follow each commit in the order of the records (keeping them in memory,
     * answering waiters) goes here. A callback attached to a returned future instead runs on the attaching
     * thread when the commit came first, after a newer record's. {@code then} must be quick, it holds up
     * the next commit; when it throws, the future fails. While the store is failing (a batch failed twice
     * in a row), the future fails at once with a {@link NotYetStoredException}: the record is kept and
     * retried, and {@code then} runs when it commits. A record spilled at close fails it the same way (the
     * next writer stores it; {@code then} never runs); one dropped from a full buffer, or lost because it
     * could not be spilled, fails it with an {@link IllegalStateException}.
     */
    public <T> CompletionStage<T> recordDurably(ChatRef chat, String userId, Instant time, String messageId,
                                                Message message, boolean outbound,
                                                Function<? super TranscriptRecord, ? extends T> then) {
        CompletableFuture<Object> answer = new CompletableFuture<>();
        TranscriptRecord r;
        synchronized (order) {
            r = new TranscriptRecord(nextSeq(), chat, userId, time, messageId, message, outbound);
            enqueue(new Durable(r, then, answer));
        }
        if (!healthy) { // the store is failing: kept like any record, but its caller is not kept waiting
            answer.completeExceptionally(new NotYetStoredException(r, false, null));
        }
        // Someone waits: write now instead of at the flush interval. Records that arrive while this
        // batch commits go into the next one (group commit).
        flushRequests.incrementAndGet();
        LockSupport.unpark(writer);
        @SuppressWarnings("unchecked") // answer completes only with then's result
        CompletionStage<T> result = (CompletionStage<T>) (CompletionStage<?>) answer;
        return result;
    }

    private void enqueue(Object item) {
        if (closing) {
            throw new IllegalStateException("transcript writer is closed");
        }
        if (!reserve()) {
            Object oldest = buffer.poll();
            if (oldest != null) {
                buffered.decrementAndGet();
                drop(oldest);
            }
            buffered.incrementAndGet();
        }
        buffer.offer(item);
        // idle is read after buffered was raised (reserve), and the writer reads buffered after raising idle:
        // one of the two sees the other, so a record never waits in the buffer of a parked writer.
        if (idle || buffered.get() >= batchSize) {
            LockSupport.unpark(writer);
        }
    }

    private boolean reserve() {
        long deadline = System.nanoTime() + overflowWaitNanos;
        for (;;) {
            int n = buffered.get();
            if (n < capacity) {
                if (buffered.compareAndSet(n, n + 1)) {
                    return true;
                }
                continue;
            }
            if (System.nanoTime() - deadline >= 0) {
                return false;
            }
            LockSupport.unpark(writer);
            LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(100));
        }
    }

    private void drop(Object item) {
        dropped.increment();
        if (item instanceof Durable d) {
            d.answer().completeExceptionally(new IllegalStateException(
                    "transcript buffer full: record " + d.record().seq() + " dropped before it was stored"));
        }
        dropWarnings.warn("Transcript buffer full ({} records): dropping the oldest ({} dropped in all); "
                + "the store is not keeping up", capacity, dropped.sum());
    }

    // ------------------------------------------------------------------ the writer thread

    private void writeLoop() {
        List<TranscriptRecord> batch = new ArrayList<>(batchSize);
        List<Durable> waiters = new ArrayList<>();
        long lastWrite = System.nanoTime();
        long served = 0;
        for (;;) {
            long now = System.nanoTime();
            long requested = flushRequests.get();
            int waiting = buffered.get();
            boolean due = waiting >= batchSize || (waiting > 0 && now - lastWrite >= flushIntervalNanos)
                    || closing || requested != served;
            if (!due) {
                if (waiting > 0) {
                    LockSupport.parkNanos(this, flushIntervalNanos - (now - lastWrite));
                } else { // nothing to write: sleep until a record, a flush or close comes
                    idle = true;
                    if (buffered.get() == 0 && flushRequests.get() == served && !closing) {
                        LockSupport.park(this);
                    }
                    idle = false;
                    lastWrite = System.nanoTime(); // a record that woke it waits the interval for company
                }
                continue;
            }
            served = requested;
            drain(batch, waiters);
            if (!batch.isEmpty()) {
                if (!writeWithRetry(batch, waiters)) { // abandoned: close spilled the batch and failed its waiters
                    return;
                }
                for (int i = 0; i < waiters.size(); i++) {
                    waiters.get(i).committed();
                }
                batch.clear(); // no longer `writing` (see writeWithRetry): reused, not a new list per batch
                waiters.clear();
            }
            lastWrite = System.nanoTime();
            if (closing && buffered.get() == 0) {
                return;
            }
        }
    }

    /** Moves up to a batch from the buffer to {@code writing}; history never sees a record in between. */
    private void drain(List<TranscriptRecord> batch, List<Durable> waiters) {
        synchronized (handover) {
            Object item;
            while (batch.size() < batchSize && (item = buffer.poll()) != null) {
                buffered.decrementAndGet();
                if (item instanceof Durable d) {
                    batch.add(d.record());
                    waiters.add(d);
                } else {
                    batch.add((TranscriptRecord) item);
                }
            }
            writing = batch;
            writingWaiters = waiters.isEmpty() ? List.of() : List.copyOf(waiters);
        }
    }

    /**
     * Returns once {@code batch} committed (true), or when close gave up on it (false). At its second
     * failure in a row, the answers of its {@code waiters} fail ({@link NotYetStoredException}): they are
     * not kept waiting for a store that is down.
     */
    private boolean writeWithRetry(List<TranscriptRecord> batch, List<Durable> waiters) {
        long backoff = FIRST_RETRY_BACKOFF_NANOS;
        for (;;) {
            if (abandoned) {
                return false;
            }
            try {
                long started = System.nanoTime();
                store.append(batch);
                io.micrometer.core.instrument.Timer timer = batchTimer;
                if (timer != null) {
                    timer.record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
                }
                written.add(batch.size());
                batches.increment();
                if (!healthy) {
                    LOG.info("Transcript store is back: writing again");
                }
                healthy = true;
                synchronized (handover) { // readers iterate `writing` under the lock: none is in the batch now
                    writing = List.of();
                    writingWaiters = List.of();
                }
                return true;
            } catch (Throwable t) {
                failures.increment();
                // A first failure may be one stale connection, which the retry replaces; a second one is news.
                if (backoff != FIRST_RETRY_BACKOFF_NANOS && healthy) {
                    healthy = false; // before the answers fail: a durable record recorded from now on fails itself
                    failAnswers(waiters, t);
                    LOG.error("Transcript store failed to write a batch of {} twice; keeping it and retrying",
                            batch.size(), t);
                }
                LockSupport.parkNanos(backoff);
                backoff = Math.min(backoff * 2, MAX_RETRY_BACKOFF_NANOS);
            }
        }
    }

    /**
     * Fails the answers of the batch's {@code waiters} and of every durable record waiting behind it: they
     * are kept and retried, but their callers learn now that the store is failing.
     */
    private void failAnswers(List<Durable> waiters, Throwable cause) {
        waiters.forEach(w -> w.answer().completeExceptionally(new NotYetStoredException(w.record(), false, cause)));
        synchronized (handover) {
            for (Object item : buffer) {
                if (item instanceof Durable d) {
                    d.answer().completeExceptionally(new NotYetStoredException(d.record(), false, cause));
                }
            }
        }
    }

    /** Applies retention now (it also runs every {@code retentionInterval}); returns the rows deleted. */
    public long runRetention() {
        return retention.run();
    }

    // ------------------------------------------------------------------ readers

    /**
     * The last {@code n} records of {@code chat} with {@code seq < beforeSeq} ({@link Long#MAX_VALUE}: the
     * newest), oldest first, including records still buffered or being written.
     */
    public List<TranscriptRecord> history(ChatRef chat, int n, long beforeSeq) throws Exception {
        List<TranscriptRecord> pending = new ArrayList<>();
        synchronized (handover) { // records move buffer -> writing -> store; read them in that order
            for (TranscriptRecord r : writing) {
                if (r.chat().equals(chat) && r.seq() < beforeSeq) {
                    pending.add(r);
                }
            }
            for (Object item : buffer) {
                TranscriptRecord r = item instanceof Durable d ? d.record() : (TranscriptRecord) item;
                if (r.chat().equals(chat) && r.seq() < beforeSeq) {
                    pending.add(r);
                }
            }
        }
        List<TranscriptRecord> stored = store.last(chat, n, beforeSeq);
        List<TranscriptRecord> all = new ArrayList<>(stored.size() + pending.size());
        all.addAll(stored);
        long maxStored = stored.isEmpty() ? Long.MIN_VALUE : stored.get(stored.size() - 1).seq();
        for (TranscriptRecord r : pending) {
            if (r.seq() > maxStored) { // the batch may have committed while we looked
                all.add(r);
            }
        }
        all.sort(Comparator.comparingLong(TranscriptRecord::seq));
        return all.size() <= n ? all : List.copyOf(all.subList(all.size() - n, all.size()));
    }

    /** {@link TranscriptStore#chatIds} of the store: the chats with committed records, newest first. */
    public List<String> chatIds(String platform, String detailType, int limit) throws Exception {
        return store.chatIds(platform, detailType, limit);
    }

    /** Whether the last batch committed (false while the store fails). */
    public boolean healthy() {
        return healthy;
    }

    public int buffered() {
        return buffered.get();
    }

    public long written() {
        return written.sum();
    }

    /** The writer thread, for tests that watch it wait. */
    Thread writerThread() {
        return writer;
    }

    public long dropped() {
        return dropped.sum();
    }

    /** Returns once everything recorded before this call is committed (or the timeout passes). */
    public boolean flush(Duration timeout) throws InterruptedException {
        long target = seq.get();
        flushRequests.incrementAndGet();
        LockSupport.unpark(writer);
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() - deadline < 0) {
            if (committedUpTo(target)) {
                return true;
            }
            Thread.sleep(1);
            flushRequests.incrementAndGet();
            LockSupport.unpark(writer);
        }
        return committedUpTo(target);
    }

    private boolean committedUpTo(long target) {
        synchronized (handover) {
            if (!writing.isEmpty()) {
                return false;
            }
            for (Object item : buffer) {
                TranscriptRecord r = item instanceof Durable d ? d.record() : (TranscriptRecord) item;
                if (r.seq() <= target) {
                    return false;
                }
            }
            return true;
        }
    }

    /** {@link #close(Duration)} with 10 s to write what is buffered. */
    @Override
    public void close() throws InterruptedException {
        close(Duration.ofSeconds(10));
    }

    /**
     * Refuses new records, writes everything buffered, stops the threads; returns within about
     * {@code timeout} whatever the store does. What is not committed by then is spilled (see the class
     * Javadoc) and its durable futures fail. Idempotent: a second call returns at once.
     */
    public synchronized void close(Duration timeout) throws InterruptedException {
        synchronized (order) { // producers hold it through their enqueue: none slips in after this
            if (closing) {
                return;
            }
            closing = true;
        }
        LockSupport.unpark(writer);
        retention.stop();
        long deadline = System.nanoTime() + timeout.toNanos();
        writer.join(Math.max(1, timeout.toMillis()));
        if (writer.isAlive()) {
            abandoned = true;
            LockSupport.unpark(writer);
            spillPending();
        } else if (buffered.get() > 0) {
            spillPending(); // the writer ended on a failure: nothing may stay behind unstored and unspilled
        }
        retention.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
        if (registry != null) {
            meters.forEach(registry::remove);
        }
    }

    /** Spills what is not committed for sure: the batch being written and the buffer. */
    private void spillPending() {
        List<TranscriptRecord> pending = new ArrayList<>();
        List<Durable> waiting = new ArrayList<>();
        synchronized (handover) {
            pending.addAll(writing); // its commit may still land: the replay skips what the store has
            waiting.addAll(writingWaiters);
            for (Object item; (item = buffer.poll()) != null; ) {
                buffered.decrementAndGet();
                if (item instanceof Durable d) {
                    pending.add(d.record());
                    waiting.add(d);
                } else {
                    pending.add((TranscriptRecord) item);
                }
            }
        }
        if (pending.isEmpty()) {
            return;
        }
        pending.sort(Comparator.comparingLong(TranscriptRecord::seq));
        boolean spilled = false;
        if (spill == null) {
            LOG.error("Transcript store down at shutdown: {} records not stored and lost (no spill directory set)",
                    pending.size());
        } else {
            try {
                java.nio.file.Path file = spill.write(pending);
                spilled = true;
                LOG.warn("Transcript store down at shutdown: {} records spilled to {}; they are written at the next"
                        + " start", pending.size(), file);
            } catch (java.io.IOException | RuntimeException e) {
                LOG.error("Transcript store down at shutdown and the spill to {} failed: {} records lost: {}",
                        spill.dir(), pending.size(), e.toString());
            }
        }
        for (Durable d : waiting) { // not acknowledged as stored, whatever lands
            d.answer().completeExceptionally(spilled ? new NotYetStoredException(d.record(), true, null)
                    : new IllegalStateException("the transcript store was down at shutdown: record "
                            + d.record().seq() + " is not stored"));
        }
    }

    private void bindMeters() {
        if (registry == null) {
            return;
        }
        meters.add(FunctionCounter.builder("pulsebus.transcripts.written", written, LongAdder::sum)
                .description("Transcript records committed to the store").register(registry));
        meters.add(FunctionCounter.builder("pulsebus.transcripts.dropped", dropped, LongAdder::sum)
                .description("Transcript records dropped because the buffer was full").register(registry));
        io.micrometer.core.instrument.Timer timer = io.micrometer.core.instrument.Timer
                .builder("pulsebus.transcripts.batch").description("Transcript batches stored, each append's time")
                .register(registry);
        meters.add(timer);
        batchTimer = timer;
        meters.add(FunctionCounter.builder("pulsebus.transcripts.batches", batches, LongAdder::sum)
                .description("Transcript batches committed").register(registry));
        meters.add(FunctionCounter.builder("pulsebus.transcripts.write.failures", failures, LongAdder::sum)
                .description("Failed transcript batch writes (retried)").register(registry));
        meters.add(Gauge.builder("pulsebus.transcripts.buffered", buffered, AtomicInteger::get)
                .description("Transcript records waiting to be written").register(registry));
    }

    /** Settings of a {@link TranscriptWriter}. */
    public static final class Builder {
        java.util.function.@Nullable LongSupplier seqSource;
        private final TranscriptStore store;
        private int capacity = 65_536;
        private int batchSize = 512;
        private Duration flushInterval = Duration.ofMillis(100);
        private Duration overflowWait = Duration.ofMillis(50);
        private int keepPerChat = 10_000;
        private Duration maxAge = Duration.ofDays(30);
        private Duration retentionInterval = Duration.ofMinutes(5);
        private Clock clock = Clock.systemUTC();
        private @Nullable MeterRegistry meterRegistry;
        private java.nio.file.@Nullable Path spillDirectory;

        private Builder(TranscriptStore store) {
            this.store = Objects.requireNonNull(store, "store");
        }

        /** Records that may wait in memory. Default 65,536. */
        public Builder capacity(int capacity) {
            this.capacity = Require.atLeast(capacity, 1, "capacity");
            return this;
        }

        /** Records per transaction at most; a full batch is written at once. Default 512. */
        public Builder batchSize(int batchSize) {
            this.batchSize = Require.atLeast(batchSize, 1, "batchSize");
            return this;
        }

        /** The longest a record waits for a batch to fill. Default 100 ms. */
        public Builder flushInterval(Duration interval) {
            this.flushInterval = Require.positive(interval, "flushInterval");
            return this;
        }

        /** How long a producer waits for room in a full buffer before the oldest record is dropped. Default 50 ms. */
        public Builder overflowWait(Duration wait) {
            this.overflowWait = Require.notNegative(wait, "overflowWait");
            return this;
        }

        /** Records kept per chat by retention. Default 10,000. */
        public Builder keepPerChat(int keep) {
            this.keepPerChat = Require.atLeast(keep, 1, "keepPerChat");
            return this;
        }

        /** Records older than this are deleted by retention. Default 30 days. */
        public Builder maxAge(Duration maxAge) {
            this.maxAge = Require.positive(maxAge, "maxAge");
            return this;
        }

        /** How often retention runs. Default 5 min. */
        public Builder retentionInterval(Duration interval) {
            this.retentionInterval = Require.positive(interval, "retentionInterval");
            return this;
        }

        /** The clock retention measures age by. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * Where records that could not be stored before {@link #close(Duration)} returned are kept, and
         * from where {@link #build} writes them to the store first. Default none: such records are lost.
         */
        public Builder spillDirectory(java.nio.file.Path dir) {
            this.spillDirectory = Objects.requireNonNull(dir, "dir");
            return this;
        }

        public Builder meterRegistry(MeterRegistry registry) {
            this.meterRegistry = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /**
         * Where seqs come from when several writers (instances of a cluster) share one store: a counter of the
         * database's, asked once per record while the record enters the buffer (so each writer's buffer stays
         * in seq order). It may throw when the store cannot answer; the record is then refused. Default: this
         * writer's own counter, continuing after the store's highest seq.
         */
        public Builder seqSource(java.util.function.LongSupplier source) {
            this.seqSource = Objects.requireNonNull(source, "source");
            return this;
        }

        /**
         * Starts the writer: writes spilled records to the store first, then reads the store's highest
         * sequence number.
         *
         * @throws Exception when the store cannot be read or the spilled records cannot be written (they stay)
         */
        public TranscriptWriter build() throws Exception {
            return new TranscriptWriter(this);
        }
    }
}
