package dev.pulsebus.adapter;

import com.fasterxml.jackson.core.JsonParser;
import dev.pulsebus.internal.Json;
import io.netty.buffer.ByteBuf;
import java.io.IOException;

/**
 * A streaming parser over a buffer's readable bytes: a heap buffer is read in place, a direct one is first
 * copied into a scratch array kept per thread (up to 1 MiB; a larger input gets an array of its own).
 */
public final class JsonInput {

    private static final ThreadLocal<byte[]> SCRATCH = ThreadLocal.withInitial(() -> new byte[8192]);

    private JsonInput() {
    }

    /** A parser of {@code in}'s readable bytes (not consumed); valid until this thread's next call. */
    public static JsonParser parser(ByteBuf in) throws IOException {
        int n = in.readableBytes();
        if (in.hasArray()) {
            return Json.MAPPER.getFactory().createParser(in.array(), in.arrayOffset() + in.readerIndex(), n);
        }
        byte[] scratch = SCRATCH.get();
        if (scratch.length < n) {
            scratch = new byte[Math.max(n, scratch.length * 2)];
            if (scratch.length <= 1024 * 1024) {
                SCRATCH.set(scratch);
            }
        }
        in.getBytes(in.readerIndex(), scratch, 0, n);
        return Json.MAPPER.getFactory().createParser(scratch, 0, n);
    }
}
