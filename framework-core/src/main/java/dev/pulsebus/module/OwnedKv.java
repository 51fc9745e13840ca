package dev.pulsebus.module;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pulsebus.internal.Json;
import dev.pulsebus.internal.SlowTraces;
import dev.pulsebus.kv.Kv;
import dev.pulsebus.kv.KvException;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
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
    private final @Nullable ObservationRegistry observations;
    private volatile @Nullable Kv kv;
    private volatile @Nullable ObjectMapper json;

    OwnedKv(String module, Kv kv, @Nullable ObservationRegistry observations) {
        this.module = module;
        this.kv = kv;
        this.observations = observations;
    }

    /**
     * A KV call within a command's call: a span of its trace ({@value SlowTraces#KV}), until it is done (an
     * asynchronous write: until it is committed); elsewhere nothing.
     */
    private Observation observe(String op) {
        return !SlowTraces.within(observations) ? Observation.NOOP
                : SlowTraces.child(observations, SlowTraces.KV, op + " " + module).start();
    }

    private static <T> CompletionStage<T> track(Observation o, CompletionStage<T> call) {
        if (o == Observation.NOOP) {
            return call;
        }
        return call.whenComplete((value, failure) -> {
            if (failure != null) {
                o.error(failure);
            }
            o.stop();
        });
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
        Observation o = observe("get");
        try {
            return kv().get(key);
        } finally {
            o.stop();
        }
    }

    @Override
    public byte @Nullable [] getBytes(String key) {
        Observation o = observe("get");
        try {
            return kv().getBytes(key);
        } finally {
            o.stop();
        }
    }

    @Override
    public Map<String, String> getMany(Collection<String> keys) {
        Observation o = observe("get many");
        try {
            return kv().getMany(keys);
        } finally {
            o.stop();
        }
    }

    @Override
    public List<String> keys(String prefix, int limit) {
        Observation o = observe("keys");
        try {
            return kv().keys(prefix, limit);
        } finally {
            o.stop();
        }
    }

    @Override
    public CompletionStage<@Nullable String> getAsync(String key) {
        return track(observe("get"), kv().getAsync(key));
    }

    @Override
    public CompletionStage<Void> setAsync(String key, String value, @Nullable Duration ttl) {
        return track(observe("set"), kv().setAsync(key, value, ttl));
    }

    @Override
    public void set(String key, String value) {
        Observation o = observe("set");
        try {
            kv().set(key, value);
        } finally {
            o.stop();
        }
    }

    @Override
    public void set(String key, String value, @Nullable Duration ttl) {
        Observation o = observe("set");
        try {
            kv().set(key, value, ttl);
        } finally {
            o.stop();
        }
    }

    @Override
    public CompletionStage<Void> setBytesAsync(String key, byte[] value, @Nullable Duration ttl) {
        return track(observe("set"), kv().setBytesAsync(key, value, ttl));
    }

    @Override
    public CompletionStage<Void> setManyAsync(Map<String, String> entries) {
        return track(observe("set many"), kv().setManyAsync(entries));
    }

    @Override
    public CompletionStage<Boolean> deleteAsync(String key) {
        return track(observe("delete"), kv().deleteAsync(key));
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
        return track(observe("compare and set"), kv().compareAndSetAsync(key, expected, update));
    }
}
