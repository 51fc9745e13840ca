package dev.pulsebus.testing;

import dev.pulsebus.kv.Kv;
import dev.pulsebus.kv.KvStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import org.jspecify.annotations.Nullable;

/**
 * A {@link KvStore} in memory, for core tests that need modules with KV (the real one is in
 * framework-storage): values never expire, every write is done when it returns, and keys sort as
 * strings (the same as UTF-8 bytes for the keys tests use).
 */
public final class MemoryKvStore implements KvStore {

    private final Map<String, Kv> namespaces = new ConcurrentHashMap<>();

    @Override
    public Kv namespace(String name) {
        return namespaces.computeIfAbsent(name, Namespace::new);
    }

    @Override
    public boolean healthy() {
        return true;
    }

    private record Namespace(String namespace, ConcurrentSkipListMap<String, byte[]> values) implements Kv {

        Namespace(String namespace) {
            this(namespace, new ConcurrentSkipListMap<>());
        }

        @Override
        public @Nullable String get(String key) {
            byte[] v = values.get(key);
            return v == null ? null : new String(v, StandardCharsets.UTF_8);
        }

        @Override
        public byte @Nullable [] getBytes(String key) {
            byte[] v = values.get(key);
            return v == null ? null : v.clone();
        }

        @Override
        public Map<String, String> getMany(Collection<String> keys) {
            Map<String, String> found = new LinkedHashMap<>();
            for (String k : keys) {
                String v = get(k);
                if (v != null) {
                    found.put(k, v);
                }
            }
            return found;
        }

        @Override
        public List<String> keys(String prefix, int limit) {
            return values.tailMap(prefix).keySet().stream().takeWhile(k -> k.startsWith(prefix)).limit(limit).toList();
        }

        @Override
        public CompletionStage<@Nullable String> getAsync(String key) {
            return CompletableFuture.completedFuture(get(key));
        }

        @Override
        public CompletionStage<Void> setAsync(String key, String value, @Nullable Duration ttl) {
            return setBytesAsync(key, value.getBytes(StandardCharsets.UTF_8), ttl);
        }

        @Override
        public CompletionStage<Void> setBytesAsync(String key, byte[] value, @Nullable Duration ttl) {
            values.put(key, value.clone());
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public synchronized CompletionStage<Void> setManyAsync(Map<String, String> entries) {
            entries.forEach((k, v) -> values.put(k, v.getBytes(StandardCharsets.UTF_8)));
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletionStage<Boolean> deleteAsync(String key) {
            return CompletableFuture.completedFuture(values.remove(key) != null);
        }

        @Override
        public synchronized CompletionStage<Boolean> compareAndSetAsync(String key, @Nullable String expected,
                                                                        @Nullable String update) {
            byte[] now = values.get(key);
            boolean same = expected == null ? now == null
                    : now != null && Arrays.equals(now, expected.getBytes(StandardCharsets.UTF_8));
            if (same) {
                if (update == null) {
                    values.remove(key);
                } else {
                    values.put(key, update.getBytes(StandardCharsets.UTF_8));
                }
            }
            return CompletableFuture.completedFuture(same);
        }
    }
}
