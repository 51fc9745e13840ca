package dev.pulsebus.storage;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A value as the read cache holds it: its bytes, its text once decoded, and when it expires
 * ({@link Long#MAX_VALUE}: never). {@link #ABSENT} caches a miss.
 */
final class CachedValue {

    static final CachedValue ABSENT = new CachedValue(null, null, Long.MAX_VALUE);

    final byte @Nullable [] bytes;
    final long expiresAt;
    // Racy single-check idiom: String is immutable, so a thread sees either null or the whole value.
    private @Nullable String text;

    CachedValue(byte @Nullable [] bytes, @Nullable String text, long expiresAt) {
        this.bytes = bytes;
        this.text = text;
        this.expiresAt = expiresAt;
    }

    boolean live(long nowMillis) {
        return bytes != null && expiresAt > nowMillis;
    }

    String text(String key) {
        String t = text;
        if (t == null) {
            t = KvCodec.decode(key, Objects.requireNonNull(bytes, "read only while live"));
            text = t;
        }
        return t;
    }
}
