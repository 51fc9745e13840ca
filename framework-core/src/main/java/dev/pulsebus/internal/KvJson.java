package dev.pulsebus.internal;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pulsebus.kv.Kv;
import dev.pulsebus.kv.KvException;
import java.io.IOException;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/** {@link Kv#getJson} and {@link Kv#setJson} with the mapper given. Internal: not an API. */
public final class KvJson {

    private KvJson() {
    }

    public static <T> @Nullable T get(Kv kv, ObjectMapper mapper, String key, Class<T> type) {
        byte[] bytes = kv.getBytes(key);
        if (bytes == null) {
            return null;
        }
        try {
            return mapper.readValue(bytes, type);
        } catch (IOException e) {
            throw new KvException("value of '" + key + "' in " + kv.namespace() + " is not JSON of "
                    + type.getSimpleName() + ": " + e.getMessage(), e);
        }
    }

    public static void set(Kv kv, ObjectMapper mapper, String key, Object value, @Nullable Duration ttl) {
        byte[] bytes;
        try {
            bytes = mapper.writeValueAsBytes(value);
        } catch (IOException e) {
            throw new KvException("cannot write " + value.getClass().getSimpleName() + " as JSON: " + e.getMessage(), e);
        }
        kv.setBytes(key, bytes, ttl);
    }
}
