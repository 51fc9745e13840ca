package dev.pulsebus.telegram;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * One bot's handled watermark: the {@code update_id} that its poller may confirm up to (the {@code offset} it
 * sends, and stores), below which every update it took has been handled or given up on. The poller takes
 * updates in {@code update_id} order and hands them to the lanes, which settle them in any order across
 * chats; each handed update has a slot in a ring of {@link #SIZE}, indexed by its hand-off sequence. The
 * poller alone hands ({@link #hand}), passes over ({@link #pass}) and reads ({@link #watermark}); any thread
 * settles ({@link #settle}). No lock, nothing allocated.
 */
final class Watermark {

    /**
     * Updates handed and not yet settled, at most. Telegram answers at most 100 updates from the offset, and the
     * offset never passes one not settled, so it holds no more than 100 with Telegram; a server that sends
     * more finds it full, like a full lane.
     */
    static final int SIZE = 1024;
    private static final int MASK = SIZE - 1;

    /** By slot, the {@code update_id} handed with that sequence. The poller's only. */
    private final long[] ids = new long[SIZE];
    /** By slot, the highest sequence settled there (sequences start at 1, so 0 is none). */
    private final AtomicLongArray settled = new AtomicLongArray(SIZE);
    /** The next sequence to hand. The poller's only. */
    private long tail = 1;
    /** The oldest sequence not known to be settled. The poller's only. */
    private long head = 1;
    /** The {@code update_id} after the last one taken (handed or passed over). The poller's only. */
    private long next;
    /** The poller, while it waits for the watermark to move. */
    private volatile @Nullable Thread waiter;

    /** Nothing taken yet; the updates from {@code offset} on are new. */
    Watermark(long offset) {
        this.next = offset;
    }

    /** Whether the update {@code updateId} was taken before (handed, or passed over). */
    boolean taken(long updateId) {
        return updateId < next;
    }

    /** The sequence the next update handed will have; -1 when the ring is full. Nothing is recorded yet. */
    long nextSequence() {
        advance();
        return tail - head >= SIZE ? -1 : tail;
    }

    /** Records {@code updateId} as handed with the sequence {@link #nextSequence} gave. */
    void hand(long updateId) {
        ids[(int) (tail & MASK)] = updateId;
        tail++;
        next = updateId + 1;
    }

    /** Records {@code updateId} as taken without handing it (a bad update): nothing waits for it. */
    void pass(long updateId) {
        next = Math.max(next, updateId + 1);
    }

    /** The update handed with {@code sequence} no longer waits on its lane. Any thread, once per sequence. */
    void settle(long sequence) {
        settled.accumulateAndGet((int) (sequence & MASK), sequence, Math::max);
        Thread w = waiter; // read after the write above; the poller writes it before it looks: no wake-up is missed
        if (w != null) {
            LockSupport.unpark(w);
        }
    }

    /** The first {@code update_id} taken and not settled; when all are, the one after the last taken. */
    long watermark() {
        advance();
        return head < tail ? ids[(int) (head & MASK)] : next;
    }

    /**
     * Waits until the watermark is past {@code offset} or {@code millis} have passed; at once when it is
     * already.
     */
    void awaitPast(long offset, long millis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        waiter = Thread.currentThread();
        try {
            long left;
            while (watermark() <= offset && (left = deadline - System.nanoTime()) > 0) {
                LockSupport.parkNanos(this, left);
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
            }
        } finally {
            waiter = null;
        }
    }

    private void advance() {
        while (head < tail && settled.get((int) (head & MASK)) >= head) {
            head++;
        }
    }
}
