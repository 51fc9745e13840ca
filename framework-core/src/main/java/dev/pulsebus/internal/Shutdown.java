package dev.pulsebus.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a bot (the runtime, the server around it) has opened, in the order it opened it, closed newest first:
 * at shutdown, and when the start fails part way, so that a failed start leaves nothing running and the two
 * paths cannot disagree. Each close gets the time left before a shared deadline; one that fails is logged and
 * the next runs. Not thread-safe: a bot opens on one thread and closes once.
 */
public final class Shutdown {

    private static final Logger LOG = LoggerFactory.getLogger(Shutdown.class);

    /** Closes one thing; {@code nanosLeft} is the time left before the deadline (at least 1 ms). */
    public interface Closer {
        void close(long nanosLeft) throws Exception;
    }

    private record Entry(String what, Closer closer) {
    }

    private final List<Entry> entries = new ArrayList<>();

    /** Remembers {@code closer}, to run before everything added earlier. */
    public void add(String what, Closer closer) {
        entries.add(new Entry(what, closer));
    }

    /** Remembers a close that needs no time budget. */
    public void add(String what, AutoCloseable closeable) {
        add(what, nanosLeft -> closeable.close());
    }

    /**
     * Remembers a close that runs code the server does not control (adapters, modules) and may block: it
     * runs on a thread of its own and is waited for at most a quarter of the time left, so the steps after
     * it (the transcripts' flush or spill) keep their time. One still running then is left to finish (a
     * daemon thread) and logged.
     */
    public void addBounded(String what, AutoCloseable closeable) {
        add(what, nanosLeft -> {
            Thread t = Thread.ofPlatform().daemon().name("pulsebus-shutdown-" + what).start(() -> {
                try {
                    closeable.close();
                } catch (Exception | LinkageError e) {
                    LOG.warn("Shutdown step '{}' failed; going on: {}", what, e.toString());
                }
            });
            if (!t.join(java.time.Duration.ofNanos(Math.max(TimeUnit.MILLISECONDS.toNanos(1), nanosLeft / 4)))) {
                LOG.warn("Shutdown step '{}' did not finish in its share of the shutdown timeout; going on", what);
            }
        });
    }

    /**
     * Closes everything, newest first, within {@code timeoutNanos} as far as each closer keeps to its
     * budget; forgets them. Returns the names of the steps that failed.
     */
    public List<String> closeAll(long timeoutNanos) {
        long deadline = System.nanoTime() + timeoutNanos;
        List<String> failed = new ArrayList<>();
        for (int i = entries.size() - 1; i >= 0; i--) {
            Entry e = entries.get(i);
            long left = Math.max(TimeUnit.MILLISECONDS.toNanos(1), deadline - System.nanoTime());
            try {
                e.closer.close(left);
            } catch (Exception | LinkageError ex) {
                failed.add(e.what);
                LOG.warn("Shutdown step '{}' failed; going on: {}", e.what, ex.toString());
            }
        }
        entries.clear();
        return failed;
    }

    /** The steps, oldest first (for tests and logs). */
    public List<String> steps() {
        return entries.stream().map(Entry::what).toList();
    }
}
