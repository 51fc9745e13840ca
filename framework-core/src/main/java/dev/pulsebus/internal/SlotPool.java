package dev.pulsebus.internal;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Supplier;

/**
 * Objects kept for reuse in a fixed number of slots, taken and given back without a lock: a taker empties the
 * first full slot it finds by compare-and-set, a giver fills the first empty one. When every slot is empty a
 * new object is made; one given back to a full pool is left to the collector. Each thread starts its search at
 * a slot of its own, so two cores rarely race for one. For what a thread-local would hold where threads are
 * many and short-lived (virtual threads), so that each would make its own.
 *
 * @param <T> what is pooled: the taker has it alone until it gives it back
 */
public final class SlotPool<T> {

    private final AtomicReferenceArray<T> slots;
    /** The slots less one: their number is a power of two, so that this wraps an index. */
    private final int mask;
    private final Supplier<? extends T> factory;

    /** A pool of {@code capacity} slots (rounded up to a power of two) of what {@code factory} makes. */
    public SlotPool(int capacity, Supplier<? extends T> factory) {
        int size = capacity <= 1 ? 1 : Integer.highestOneBit(capacity - 1) << 1;
        this.slots = new AtomicReferenceArray<>(size);
        this.mask = size - 1;
        this.factory = Objects.requireNonNull(factory, "factory");
    }

    /** The number of slots. */
    public int capacity() {
        return slots.length();
    }

    /** One of the pooled objects, or a new one when none is pooled. */
    public T take() {
        int start = start();
        for (int i = 0; i <= mask; i++) {
            int slot = (start + i) & mask;
            T t = slots.getAcquire(slot);
            if (t != null && slots.compareAndSet(slot, t, null)) {
                return t;
            }
        }
        return Objects.requireNonNull(factory.get(), "the pool's factory made null");
    }

    /** Gives {@code t} back for reuse (left to the collector when every slot is full); the caller keeps no use of it. */
    public void give(T t) {
        Objects.requireNonNull(t, "t");
        int start = start();
        for (int i = 0; i <= mask; i++) {
            int slot = (start + i) & mask;
            if (slots.getAcquire(slot) == null && slots.compareAndSet(slot, null, t)) {
                return;
            }
        }
    }

    /** The number of objects pooled now. */
    public int pooled() {
        int n = 0;
        for (int i = 0; i <= mask; i++) {
            if (slots.getAcquire(i) != null) {
                n++;
            }
        }
        return n;
    }

    /** Empties every slot. */
    public void clear() {
        for (int i = 0; i <= mask; i++) {
            slots.setRelease(i, null);
        }
    }

    private int start() {
        long id = Thread.currentThread().threadId();
        return (int) ((id * 0x9E3779B97F4A7C15L) >>> 40) & mask;
    }
}
