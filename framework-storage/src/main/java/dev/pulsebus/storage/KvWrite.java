package dev.pulsebus.storage;

import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import org.jspecify.annotations.Nullable;

/**
 * A queued KV write: {@link #apply} runs it inside the batch's transaction, {@link #committed} (after
 * the commit) updates the read cache and then completes the caller's future, so that a caller who sees
 * the future complete also reads the new value.
 */
sealed interface KvWrite {

    CompletableFuture<?> future();

    void apply(KvTransaction tx) throws SQLException;

    void committed();

    /**
     * Completes the futures handed to callers off the writer thread: the writer goes on committing, and a
     * callback that makes a sync KV call cannot wait for the writer it runs on. A future of a sync call
     * ({@link Sync}: its caller only waits, attaching nothing) completes on the writer at once. (Completing
     * any other future inline when it had no dependents yet raced with a callback attached in between,
     * which then ran on the writer.)
     */
    Executor CALLBACKS = Executors.newVirtualThreadPerTaskExecutor();

    /** The future of a sync call: its caller waits for it, and nothing else can attach to it. */
    final class Sync<T> extends CompletableFuture<T> {
    }

    static <T> void complete(CompletableFuture<T> future, @Nullable T value) {
        if (future instanceof Sync) {
            future.complete(value);
        } else {
            CALLBACKS.execute(() -> future.complete(value));
        }
    }

    static void fail(CompletableFuture<?> future, Throwable error) {
        if (future instanceof Sync) {
            future.completeExceptionally(error);
        } else {
            CALLBACKS.execute(() -> future.completeExceptionally(error));
        }
    }

    /** Not a write: queued by close to end the writer's idle wait; it does nothing in a batch. */
    enum Wake implements KvWrite {
        INSTANCE;

        private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

        @Override
        public CompletableFuture<?> future() {
            return DONE;
        }

        @Override
        public void apply(KvTransaction tx) {
        }

        @Override
        public void committed() {
        }
    }

    /** One key set to a value. {@code text} is the value as text when the caller gave text. */
    @SuppressWarnings("ArrayRecordComponent") // the value as given, written once; records here are never compared
    record Put(NamespaceKv kv, String key, byte[] value, @Nullable String text, long expiresAt,
               CompletableFuture<Void> future) implements KvWrite {
        @Override
        public void apply(KvTransaction tx) throws SQLException {
            tx.put(kv.namespace(), key, value, expiresAt);
        }

        @Override
        public void committed() {
            kv.cached(key, new CachedValue(value, text, expiresAt));
            KvWrite.complete(future, null);
        }
    }

    /** Several keys set together, all or nothing. */
    record PutMany(NamespaceKv kv, List<Put> puts, CompletableFuture<Void> future) implements KvWrite {
        @Override
        public void apply(KvTransaction tx) throws SQLException {
            for (Put put : puts) {
                put.apply(tx);
            }
        }

        @Override
        public void committed() {
            for (Put put : puts) {
                kv.cached(put.key(), new CachedValue(put.value(), put.text(), put.expiresAt()));
            }
            KvWrite.complete(future, null);
        }
    }

    final class Delete implements KvWrite {
        private final NamespaceKv kv;
        private final String key;
        private final CompletableFuture<Boolean> future = new CompletableFuture<>();
        private boolean present;

        Delete(NamespaceKv kv, String key) {
            this.kv = kv;
            this.key = key;
        }

        @Override
        public CompletableFuture<Boolean> future() {
            return future;
        }

        @Override
        public void apply(KvTransaction tx) throws SQLException {
            present = tx.delete(kv.namespace(), key);
        }

        @Override
        public void committed() {
            kv.cached(key, CachedValue.ABSENT);
            KvWrite.complete(future, present);
        }
    }

    final class CompareAndSet implements KvWrite {
        private final NamespaceKv kv;
        private final String key;
        private final byte @Nullable [] expected;
        private final byte @Nullable [] update;
        private final @Nullable String updateText;
        private final CompletableFuture<Boolean> future = new CompletableFuture<>();
        private boolean swapped;

        CompareAndSet(NamespaceKv kv, String key, byte @Nullable [] expected, byte @Nullable [] update,
                      @Nullable String updateText) {
            this.kv = kv;
            this.key = key;
            this.expected = expected;
            this.update = update;
            this.updateText = updateText;
        }

        @Override
        public CompletableFuture<Boolean> future() {
            return future;
        }

        @Override
        public void apply(KvTransaction tx) throws SQLException {
            swapped = tx.compareAndSet(kv.namespace(), key, expected, update);
        }

        @Override
        public void committed() {
            if (swapped) {
                kv.cached(key, update == null ? CachedValue.ABSENT : new CachedValue(update, updateText, Long.MAX_VALUE));
            } else {
                // The database disagreed with what we expected: whatever we cached may be another
                // instance's past; read it afresh next time.
                kv.invalidate(key);
            }
            KvWrite.complete(future, swapped);
        }
    }
}
