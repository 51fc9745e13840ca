package dev.pulsebus.internal;

import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The unfinished futures an owner (a command, a module) has started, so that when the owner goes away
 * each is failed and whoever waits on it wakes up. A future leaves the set when it completes, so the set
 * holds only what is pending; its size is bounded by whatever bounds the futures (the pipeline's asks).
 * Thread-safe. Internal to PulseBus: not an API.
 */
public final class OwnedFutures<T> {

    private final Set<CompletableFuture<T>> pending = ConcurrentHashMap.newKeySet();
    private final Supplier<? extends Throwable> ended;
    private volatile boolean closed;

    /** @param ended the failure each future gets when the owner ends */
    public OwnedFutures(Supplier<? extends Throwable> ended) {
        this.ended = ended;
    }

    /** Keeps {@code future} until it completes; fails it at once when the owner has ended. Returns it. */
    @SuppressWarnings({"CollectionUndefinedEquality", "FutureReturnValueIgnored"}) // futures by identity, as meant
    public CompletableFuture<T> own(CompletableFuture<T> future) {
        if (future.isDone()) {
            return future;
        }
        pending.add(future);
        future.whenComplete((v, t) -> pending.remove(future));
        if (closed) {
            close();
        }
        return future;
    }

    /** Fails every pending future, and from now on each one given. Idempotent. */
    public void close() {
        closed = true;
        for (CompletableFuture<T> f : pending) {
            f.completeExceptionally(ended.get());
        }
    }

    /** How many are pending. */
    public int size() {
        return pending.size();
    }
}
