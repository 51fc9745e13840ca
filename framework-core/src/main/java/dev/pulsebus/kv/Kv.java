package dev.pulsebus.kv;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pulsebus.internal.Json;
import dev.pulsebus.internal.WriterThread;
import java.io.IOException;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/**
 * One namespace of the key-value store. Keys are strings (1 to 255 characters, valid UTF-8, no NUL);
 * values are strings, bytes or objects mapped to JSON by PulseBus's Jackson mapper (a module's handle,
 * {@code ModuleContext.kv()}, by a mapper of its own, which goes with it when the module unloads), all
 * stored as bytes. A value may carry a time to live, after which it reads as absent.
 *
 * <p><b>Durability.</b> A write is durable when its future completes (the sync forms return then):
 * its transaction has committed, per the backend's sync setting. Writes that arrive while a
 * transaction commits are group-committed in the next one, in arrival order.
 *
 * <p><b>Reads</b> of hot keys are answered from a bounded in-process cache that this instance's writes
 * keep coherent: once a write's future completes, every read in this process sees it. Another instance
 * writing the same shared database is seen after at most the cache's time to live (see the README).
 *
 * <p>Every method is thread-safe. Sync forms throw {@link KvException}; async forms complete
 * exceptionally with it.
 */
public interface Kv {

    /** How long a sync call on a platform thread spins for its result before parking. */
    long AWAIT_SPIN_NANOS = 50_000;

    /** This namespace's name. */
    String namespace();

    /** The value of {@code key} as text, or null when absent or expired. */
    @Nullable String get(String key);

    /** The value of {@code key} as bytes (a copy), or null when absent or expired. */
    byte @Nullable [] getBytes(String key);

    /** The values of those {@code keys} that are present, as text. */
    Map<String, String> getMany(Collection<String> keys);

    /** Up to {@code limit} present keys starting with {@code prefix}, in ascending (UTF-8 byte) order. */
    List<String> keys(String prefix, int limit);

    /** {@link #get} without blocking the caller: complete at once on a cache hit. */
    CompletionStage<@Nullable String> getAsync(String key);

    /** Sets {@code key} to {@code value}, expiring after {@code ttl} (null: never). */
    CompletionStage<Void> setAsync(String key, String value, @Nullable Duration ttl);

    /** Sets {@code key} to a copy of {@code value}, expiring after {@code ttl} (null: never). */
    CompletionStage<Void> setBytesAsync(String key, byte[] value, @Nullable Duration ttl);

    /** Sets every entry in one transaction, all or nothing. */
    CompletionStage<Void> setManyAsync(Map<String, String> entries);

    /** Deletes {@code key}; completes with whether it was present. */
    CompletionStage<Boolean> deleteAsync(String key);

    /**
     * Sets {@code key} to {@code update} only if its value is now {@code expected}; null means absent
     * (so {@code expected == null} is "set if absent" and {@code update == null} is "delete if equal").
     * The new value never expires. Completes with whether the swap happened.
     */
    CompletionStage<Boolean> compareAndSetAsync(String key, @Nullable String expected, @Nullable String update);

    // ---- sync and typed forms: defaults over the primitives above ----

    default CompletionStage<Void> setAsync(String key, String value) {
        return setAsync(key, value, null);
    }

    default void set(String key, String value) {
        await(setAsync(key, value, null));
    }

    default void set(String key, String value, @Nullable Duration ttl) {
        await(setAsync(key, value, ttl));
    }

    default void setBytes(String key, byte[] value, @Nullable Duration ttl) {
        await(setBytesAsync(key, value, ttl));
    }

    default void setMany(Map<String, String> entries) {
        await(setManyAsync(entries));
    }

    default boolean delete(String key) {
        return await(deleteAsync(key));
    }

    default boolean compareAndSet(String key, @Nullable String expected, @Nullable String update) {
        return await(compareAndSetAsync(key, expected, update));
    }

    /** The value of {@code key} read from JSON as {@code type}, or null when absent. */
    default <T> @Nullable T getJson(String key, Class<T> type) {
        return getJson(key, type, Json.MAPPER);
    }

    /** Sets {@code key} to {@code value} written as JSON, expiring after {@code ttl} (null: never). */
    default void setJson(String key, Object value, @Nullable Duration ttl) {
        setJson(key, value, ttl, Json.MAPPER);
    }

    /**
     * The value of {@code key} read from JSON as {@code type} by {@code mapper}, or null when absent.
     *
     * @throws KvException when the value is not JSON of {@code type}
     */
    default <T> @Nullable T getJson(String key, Class<T> type, ObjectMapper mapper) {
        byte[] bytes = getBytes(key);
        if (bytes == null) {
            return null;
        }
        try {
            return mapper.readValue(bytes, type);
        } catch (IOException e) {
            throw new KvException("value of '" + key + "' in " + namespace() + " is not JSON of "
                    + type.getSimpleName() + ": " + e.getMessage(), e);
        }
    }

    /** Sets {@code key} to {@code value} written as JSON by {@code mapper}, expiring after {@code ttl} (null: never). */
    default void setJson(String key, Object value, @Nullable Duration ttl, ObjectMapper mapper) {
        byte[] bytes;
        try {
            bytes = mapper.writeValueAsBytes(value);
        } catch (IOException e) {
            throw new KvException("cannot write " + value.getClass().getSimpleName() + " as JSON: " + e.getMessage(), e);
        }
        setBytes(key, bytes, ttl);
    }

    /**
     * Waits for {@code stage}, rethrowing its {@link KvException} (or wrapping another failure in one).
     * A platform thread spins for up to {@value #AWAIT_SPIN_NANOS} ns before it parks: a commit usually
     * lands within that, and waking a parked thread costs more than the wait. Virtual threads park at once.
     */
    static <T> T await(CompletionStage<T> stage) {
        CompletableFuture<T> future = stage.toCompletableFuture();
        if (!future.isDone() && WriterThread.isCurrent()) {
            throw new KvException("a sync KV call inside a callback that runs on the KV writer thread would wait"
                    + " for itself: use the async form, or attach the callback with thenRunAsync/thenAcceptAsync");
        }
        if (!future.isDone() && !Thread.currentThread().isVirtual()) {
            long deadline = System.nanoTime() + AWAIT_SPIN_NANOS;
            while (!future.isDone() && System.nanoTime() - deadline < 0) {
                Thread.onSpinWait();
            }
        }
        try {
            return future.join();
        } catch (CompletionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof KvException kv) {
                // A fresh exception: the caller's stack, the writer's as cause.
                throw new KvException(String.valueOf(kv.getMessage()), kv);
            }
            throw new KvException("KV call failed: " + cause, cause);
        }
    }
}
