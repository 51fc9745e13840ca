package dev.pulsebus.module;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pulsebus.internal.Json;
import dev.pulsebus.kv.Kv;
import dev.pulsebus.kv.KvException;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/**
 * A module's KV namespace handle: delegates while the module is loaded, refuses every call after. Its JSON
 * goes through a mapper of its own ({@link Json#isolated}), made at the first use and let go at unload:
 * the shared mapper would cache the module's classes, keeping every unloaded version loaded.
 */
final class OwnedKv implements Kv {

    private final String module;
    private volatile @Nullable Kv kv;
    private volatile @Nullable ObjectMapper json;

    OwnedKv(String module, Kv kv) {
        this.module = module;
        this.kv = kv;
    }

    void release() {
        kv = null;
        json = null;
    }

    /** This module's mapper; two threads that race to make it may each use one of their own, once. */
    private ObjectMapper json() {
        kv(); // refused once unloaded, before a mapper is made
        ObjectMapper m = json;
        if (m == null) {
            json = m = Json.isolated();
        }
        return m;
    }

    private Kv kv() {
        Kv k = kv;
        if (k == null) {
            throw new KvException("module '" + module + "' is unloaded: its KV handle is released");
        }
        return k;
    }

    @Override
    public String namespace() {
        return module;
    }

    @Override
    public @Nullable String get(String key) {
        return kv().get(key);
    }

    @Override
    public byte @Nullable [] getBytes(String key) {
        return kv().getBytes(key);
    }

    @Override
    public Map<String, String> getMany(Collection<String> keys) {
        return kv().getMany(keys);
    }

    @Override
    public List<String> keys(String prefix, int limit) {
        return kv().keys(prefix, limit);
    }

    @Override
    public CompletionStage<@Nullable String> getAsync(String key) {
        return kv().getAsync(key);
    }

    @Override
    public CompletionStage<Void> setAsync(String key, String value, @Nullable Duration ttl) {
        return kv().setAsync(key, value, ttl);
    }

    @Override
    public void set(String key, String value) {
        kv().set(key, value);
    }

    @Override
    public void set(String key, String value, @Nullable Duration ttl) {
        kv().set(key, value, ttl);
    }

    @Override
    public CompletionStage<Void> setBytesAsync(String key, byte[] value, @Nullable Duration ttl) {
        return kv().setBytesAsync(key, value, ttl);
    }

    @Override
    public CompletionStage<Void> setManyAsync(Map<String, String> entries) {
        return kv().setManyAsync(entries);
    }

    @Override
    public CompletionStage<Boolean> deleteAsync(String key) {
        return kv().deleteAsync(key);
    }

    @Override
    public <T> @Nullable T getJson(String key, Class<T> type) {
        return getJson(key, type, json());
    }

    @Override
    public void setJson(String key, Object value, @Nullable Duration ttl) {
        setJson(key, value, ttl, json());
    }

    @Override
    public CompletionStage<Boolean> compareAndSetAsync(String key, @Nullable String expected, @Nullable String update) {
        return kv().compareAndSetAsync(key, expected, update);
    }
}
