package dev.pulsebus.storage;

import com.github.benmanes.caffeine.cache.Cache;
import dev.pulsebus.kv.Kv;
import dev.pulsebus.kv.KvException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/**
 * One namespace: reads through the bounded cache (when on), writes through the store's group-commit
 * writer. A cached read is a map lookup and an expiry check: no lock, no allocation.
 *
 * <p>Coherence: a miss loads under Caffeine's per-key compute, and a committed write replaces the entry
 * after that compute ends, so a load that read the old row can never overwrite the new value.
 */
final class NamespaceKv implements Kv {

    private final String ns;
    private final JdbcKvStore store;
    private final @Nullable Cache<String, CachedValue> cache;

    NamespaceKv(String ns, JdbcKvStore store, @Nullable Cache<String, CachedValue> cache) {
        this.ns = ns;
        this.store = store;
        this.cache = cache;
    }

    @Override
    public String namespace() {
        return ns;
    }

    @Override
    public @Nullable String get(String key) {
        CachedValue v = lookup(key);
        return v.live(store.clock.millis()) ? v.text(key) : null;
    }

    @Override
    public byte @Nullable [] getBytes(String key) {
        CachedValue v = lookup(key);
        byte[] bytes = v.bytes;
        return bytes != null && v.live(store.clock.millis()) ? bytes.clone() : null;
    }

    @Override
    public Map<String, String> getMany(Collection<String> keys) {
        Map<String, String> found = new LinkedHashMap<>();
        for (String key : keys) {
            String value = get(key);
            if (value != null) {
                found.put(key, value);
            }
        }
        return found;
    }

    @Override
    public List<String> keys(String prefix, int limit) {
        if (prefix == null) {
            throw new KvException("KV key prefix is null");
        }
        if (limit <= 0) {
            return List.of();
        }
        return store.keys(ns, prefix, limit);
    }

    @Override
    public CompletionStage<@Nullable String> getAsync(String key) {
        KvCodec.checkKey(key);
        if (cache != null) {
            CachedValue v = cache.getIfPresent(key);
            if (v != null) {
                try {
                    return CompletableFuture.completedFuture(v.live(store.clock.millis()) ? v.text(key) : null);
                } catch (KvException e) {
                    return CompletableFuture.failedFuture(e);
                }
            }
        }
        return CompletableFuture.supplyAsync(() -> get(key), store.readExecutor);
    }

    @Override
    public CompletionStage<Void> setAsync(String key, String value, @Nullable Duration ttl) {
        return put(key, value, ttl, new CompletableFuture<>());
    }

    @Override
    public void set(String key, String value) {
        set(key, value, null);
    }

    @Override
    public void set(String key, String value, @Nullable Duration ttl) {
        Kv.await(put(key, value, ttl, new KvWrite.Sync<>())); // only waited for: completed on the writer
    }

    private CompletionStage<Void> put(String key, String value, @Nullable Duration ttl, CompletableFuture<Void> done) {
        try {
            KvCodec.checkKey(key);
            byte[] bytes = KvCodec.encode(key, value, store.maxValueBytes);
            return store.writer.submit(new KvWrite.Put(this, key, bytes, value, store.expiresAt(ttl), done)).future();
        } catch (KvException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public CompletionStage<Void> setBytesAsync(String key, byte[] value, @Nullable Duration ttl) {
        try {
            KvCodec.checkKey(key);
            byte[] copy = KvCodec.checkSize(key, value, store.maxValueBytes).clone();
            return store.writer.submit(new KvWrite.Put(this, key, copy, null, store.expiresAt(ttl),
                    new CompletableFuture<>())).future();
        } catch (KvException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public CompletionStage<Void> setManyAsync(Map<String, String> entries) {
        try {
            List<KvWrite.Put> puts = new ArrayList<>(entries.size());
            CompletableFuture<Void> all = new CompletableFuture<>(); // each Put's too: they commit as one
            for (Map.Entry<String, String> e : entries.entrySet()) {
                String key = KvCodec.checkKey(e.getKey());
                puts.add(new KvWrite.Put(this, key, KvCodec.encode(key, e.getValue(), store.maxValueBytes),
                        e.getValue(), Long.MAX_VALUE, all));
            }
            if (puts.isEmpty()) {
                return CompletableFuture.completedFuture(null);
            }
            return store.writer.submit(new KvWrite.PutMany(this, puts, all)).future();
        } catch (KvException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public CompletionStage<Boolean> deleteAsync(String key) {
        try {
            return store.writer.submit(new KvWrite.Delete(this, KvCodec.checkKey(key))).future();
        } catch (KvException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public CompletionStage<Boolean> compareAndSetAsync(String key, @Nullable String expected, @Nullable String update) {
        try {
            KvCodec.checkKey(key);
            byte[] exp = expected == null ? null : KvCodec.encode(key, expected, store.maxValueBytes);
            byte[] upd = update == null ? null : KvCodec.encode(key, update, store.maxValueBytes);
            return store.writer.submit(new KvWrite.CompareAndSet(this, key, exp, upd, update)).future();
        } catch (KvException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    long cacheHits() {
        return cache == null ? 0 : cache.stats().hitCount();
    }

    void cached(String key, CachedValue value) {
        if (cache != null) {
            cache.put(key, value);
        }
    }

    void invalidate(String key) {
        if (cache != null) {
            cache.invalidate(key);
        }
    }

    private CachedValue lookup(String key) {
        KvCodec.checkKey(key);
        if (cache == null) {
            return store.read(ns, key);
        }
        CachedValue v = cache.getIfPresent(key);
        return v != null ? v : cache.get(key, k -> store.read(ns, k));
    }

    @Override
    public String toString() {
        return "Kv[" + ns + "]";
    }
}
