package dev.pulsebus.server;

import dev.pulsebus.transcript.TranscriptRecord;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Runs what follows each commit of the chat's messages (keeping it in memory, answering waiting polls) in
 * the order their seqs were given, whichever order their commits are reported in. The transcript writer
 * completes its futures in commit order, but a future already complete when its caller attaches a
 * callback runs that callback on the caller's thread, later than a newer message's: a poll answered in
 * between would get the newer message without the older one and ask after it from then on.
 *
 * <p>A ticket is taken in the same critical section that has the writer give the record its seq, so
 * ticket order is seq order among this chat's messages; finished commits wait here until all before
 * them have run, and the thread that finishes the oldest runs them.
 */
final class CommitOrder {

    private long issued;
    private long next;
    private boolean draining;
    /** Finished commits waiting for an older one, by ticket: as many as commits in flight at most. */
    private final Map<Long, Runnable> ready = new HashMap<>();

    /**
     * Stores with {@code store} (which gives the record its seq), then, in seq order, applies {@code then}
     * to the committed record; the result completes with what {@code then} returns, or with the store's
     * or {@code then}'s failure. A {@code store} that throws takes no turn and throws here.
     */
    <T> CompletionStage<T> commit(Supplier<CompletionStage<TranscriptRecord>> store, Function<TranscriptRecord, T> then) {
        long ticket;
        CompletionStage<TranscriptRecord> stored;
        synchronized (this) {
            stored = store.get();
            ticket = issued++;
        }
        CompletableFuture<T> result = new CompletableFuture<>();
        stored.whenComplete((record, error) -> finished(ticket, () -> {
            if (error != null) {
                result.completeExceptionally(error);
                return;
            }
            try {
                result.complete(then.apply(record));
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
            }
        }));
        return result;
    }

    private void finished(long ticket, Runnable work) {
        synchronized (this) {
            ready.put(ticket, work);
            if (draining) {
                return; // the thread draining runs it in its turn
            }
            draining = true;
        }
        while (true) {
            Runnable due;
            synchronized (this) {
                due = ready.remove(next);
                if (due == null) {
                    draining = false;
                    return;
                }
                next++;
            }
            due.run(); // outside the lock, and in order: only one thread drains at a time
        }
    }
}
