package dev.pulsebus.pipeline;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The replies a piece of work sends on its own thread ({@link MessagePipeline#send}, as an inline command's or
 * handler's reply is), so that whoever delivered an event can wait until they have left before it acknowledges
 * the event: a cluster's holder does, so that an instance killed after the acknowledgement has lost no reply.
 * Replies sent later, or from other threads (a blocking command's), are not seen. Costs a thread-local read per
 * send when nothing watches.
 */
public final class ReplyWatch {

    private static final ThreadLocal<List<CompletableFuture<String>>> WATCHING = new ThreadLocal<>();

    private ReplyWatch() {
    }

    /**
     * Runs {@code work} on this thread; returns a stage that completes once every reply it sent on this thread
     * completed (sent or failed: a failure is the sender's to report, and does not fail this stage).
     */
    public static CompletableFuture<Void> run(Runnable work) {
        List<CompletableFuture<String>> outer = WATCHING.get();
        List<CompletableFuture<String>> mine = new ArrayList<>(2);
        WATCHING.set(mine);
        try {
            work.run();
        } finally {
            if (outer == null) {
                WATCHING.remove();
            } else {
                outer.addAll(mine);
                WATCHING.set(outer);
            }
        }
        if (mine.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        return CompletableFuture.allOf(mine.stream().map(f -> f.exceptionally(failed -> null))
                .toArray(CompletableFuture[]::new));
    }

    /**
     * Whether the sends made on this thread now are waited for ({@link #run}): an adapter whose send completes only
     * once another thread has done something (a cluster's room holder, which may be this very thread, busy here)
     * completes it sooner then, so that the watcher does not wait on itself.
     */
    public static boolean watching() {
        return WATCHING.get() != null;
    }

    /** Notes {@code reply}, sent on this thread, when something watches it. */
    static void sent(CompletionStage<String> reply) {
        List<CompletableFuture<String>> watching = WATCHING.get();
        if (watching != null) {
            watching.add(reply.toCompletableFuture());
        }
    }
}
