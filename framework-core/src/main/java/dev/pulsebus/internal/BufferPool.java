package dev.pulsebus.internal;

import com.fasterxml.jackson.core.util.BufferRecycler;
import com.fasterxml.jackson.core.util.RecyclerPool;

/**
 * Jackson's sets of buffers, kept for reuse in a {@link SlotPool}: taken and given back without a lock, a new
 * set made when none is pooled, one given back to a full pool left to the collector.
 *
 * <p>Jackson's bounded pool does the same behind an {@code ArrayBlockingQueue}, a lock per parse and
 * per write (on the server's I/O threads, too); its lock-free pools grow without bound.
 */
final class BufferPool implements RecyclerPool<BufferRecycler> {

    private final int size;
    private final transient SlotPool<BufferRecycler> slots;

    /** A pool of {@code capacity} slots, rounded up to a power of two. */
    BufferPool(int capacity) {
        slots = new SlotPool<>(capacity, BufferRecycler::new);
        size = slots.capacity();
    }

    /** Jackson's pools are {@code Serializable} (a factory may be): a copy comes back empty. */
    private Object readResolve() {
        return new BufferPool(size);
    }

    int capacity() {
        return slots.capacity();
    }

    @Override
    public BufferRecycler acquirePooled() {
        return slots.take();
    }

    @Override
    public void releasePooled(BufferRecycler r) {
        slots.give(r);
    }

    @Override
    public int pooledCount() {
        return slots.pooled();
    }

    @Override
    public boolean clear() {
        slots.clear();
        return true;
    }
}
