package dev.pulsebus.internal;

import com.fasterxml.jackson.core.util.BufferRecycler;
import com.fasterxml.jackson.core.util.RecyclerPool;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Jackson's sets of buffers, kept for reuse in a fixed number of slots and taken without a lock: a
 * borrower empties the first full slot it finds by compare-and-set, a returner fills the first empty
 * one. When every slot is empty a new set is made; a set given back to a full pool is left to the
 * collector. Each thread starts its search at a slot of its own, so two cores rarely race for one.
 *
 * <p>Jackson's bounded pool does the same behind an {@code ArrayBlockingQueue}, a lock per parse and
 * per write (on the server's I/O threads, too); its lock-free pools grow without bound.
 */
final class BufferPool implements RecyclerPool<BufferRecycler> {

    /** The slots: a power of two, so that {@link #mask} wraps an index. */
    private final int size;
    private final transient AtomicReferenceArray<BufferRecycler> slots;
    private final transient int mask;

    /** A pool of {@code capacity} slots, rounded up to a power of two. */
    BufferPool(int capacity) {
        size = capacity <= 1 ? 1 : Integer.highestOneBit(capacity - 1) << 1;
        slots = new AtomicReferenceArray<>(size);
        mask = size - 1;
    }

    /** Jackson's pools are {@code Serializable} (a factory may be): a copy comes back empty. */
    private Object readResolve() {
        return new BufferPool(size);
    }

    int capacity() {
        return slots.length();
    }

    @Override
    public BufferRecycler acquirePooled() {
        int start = start();
        for (int i = 0; i <= mask; i++) {
            int slot = (start + i) & mask;
            BufferRecycler r = slots.getAcquire(slot);
            if (r != null && slots.compareAndSet(slot, r, null)) {
                return r;
            }
        }
        return new BufferRecycler();
    }

    @Override
    public void releasePooled(BufferRecycler r) {
        int start = start();
        for (int i = 0; i <= mask; i++) {
            int slot = (start + i) & mask;
            if (slots.getAcquire(slot) == null && slots.compareAndSet(slot, null, r)) {
                return;
            }
        }
    }

    @Override
    public int pooledCount() {
        int n = 0;
        for (int i = 0; i <= mask; i++) {
            if (slots.getAcquire(i) != null) {
                n++;
            }
        }
        return n;
    }

    @Override
    public boolean clear() {
        for (int i = 0; i <= mask; i++) {
            slots.setRelease(i, null);
        }
        return true;
    }

    private int start() {
        long id = Thread.currentThread().threadId();
        return (int) ((id * 0x9E3779B97F4A7C15L) >>> 40) & mask;
    }
}
