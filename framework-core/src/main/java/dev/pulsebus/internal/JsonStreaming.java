package dev.pulsebus.internal;

import com.fasterxml.jackson.core.JsonFactory;

/**
 * Jackson's streaming parsers and generators for PulseBus, and the buffers every one of them (and
 * {@link Json#MAPPER}'s) borrows. Jackson's default keeps one set of buffers (some 16 KB) per thread, which
 * a virtual thread, made for one task, never uses twice: the server's answers to waiting polls, written on
 * virtual threads, allocated a third of all the garbage of the HTTP round trip that way. Here the sets are
 * shared through a bounded, lock-free pool ({@link BufferPool}): one is borrowed for a parse or a write
 * and given back; when all are out a new one is made, and one given back to a full pool is left to the
 * collector.
 *
 * <p>A class of its own so that a server can answer {@code /health} without loading the object mapper.
 * Internal: not an API.
 */
public final class JsonStreaming {

    /** Sets of buffers kept for reuse: enough for every core to be writing a few at once. */
    static final int POOLED = Math.max(8, 4 * Runtime.getRuntime().availableProcessors());

    static final BufferPool BUFFERS = new BufferPool(POOLED);

    /** The streaming factory; thread-safe. */
    public static final JsonFactory FACTORY = factory();

    private JsonStreaming() {
    }

    /** A factory of its own (an object mapper configures the one it is given) on the shared buffers. */
    static JsonFactory factory() {
        return JsonFactory.builder().recyclerPool(BUFFERS).build();
    }
}
