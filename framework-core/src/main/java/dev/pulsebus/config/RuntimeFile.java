package dev.pulsebus.config;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The values code set at run time, and the runtime file they go to ({@code <name>.runtime.toml} beside
 * the operator's file): written {@code delay} after the first unwritten set, many sets in one write, and
 * on {@link #flush}. Without a file the values are kept in memory only. Thread-safe.
 */
final class RuntimeFile {

    private static final Logger LOG = LoggerFactory.getLogger(Config.class);

    private final @Nullable Path path;
    private final String header;
    private final Duration delay;
    private final Map<String, Object> values; // guarded by this
    private final @Nullable ScheduledThreadPoolExecutor timer; // only with a file to write
    private @Nullable ScheduledFuture<?> pending;
    private boolean dirty; // values not yet written

    /** @param file the operator's file, beside which the runtime file is ({@code null}: none) */
    RuntimeFile(@Nullable Path file, Duration delay) {
        this.path = file == null ? null : TomlFiles.runtimeFileOf(file);
        this.header = file == null ? "" : "# Written by PulseBus: values set at run time. They override "
                + file.getFileName() + "; delete a line to fall back to it.\n";
        this.delay = delay;
        this.values = new LinkedHashMap<>(path == null ? Map.of() : TomlFiles.read(path, true));
        if (file != null) {
            this.timer = new ScheduledThreadPoolExecutor(1, r -> Thread.ofPlatform().daemon().name("pulsebus-config").unstarted(r));
            timer.setRemoveOnCancelPolicy(true);
        } else {
            this.timer = null;
        }
    }

    @Nullable Path path() {
        return path;
    }

    /** Keeps {@code value} and schedules a write unless one is pending. */
    synchronized void put(String key, Object value) {
        values.put(key, value);
        dirty = true;
        if (timer != null && pending == null) {
            pending = timer.schedule(this::flushQuietly, delay.toNanos(), TimeUnit.NANOSECONDS);
        }
    }

    synchronized int size() {
        return values.size();
    }

    synchronized Map<String, Object> values() {
        return new LinkedHashMap<>(values);
    }

    synchronized void copyInto(Map<String, Object> all) {
        all.putAll(values);
    }

    /** The file as it is now (may be edited by hand); empty without a file. */
    Map<String, Object> read() {
        return path == null ? Map.of() : TomlFiles.read(path, true);
    }

    /** Takes the values read from the file, unless sets not yet written are held: they win over an older file. */
    synchronized void reloaded(Map<String, Object> read) {
        if (!dirty) {
            values.clear();
            values.putAll(read);
        }
    }

    /** Writes the values not yet written now (atomically); a no-op without a file. */
    synchronized void flush() throws IOException {
        if (pending != null) {
            pending.cancel(false);
            pending = null;
        }
        if (path == null || !dirty) {
            return;
        }
        dirty = false;
        TomlFiles.write(path, header, values);
    }

    /** {@link #flush}, logging a failure; the values are then tried again at the next write. */
    void flushQuietly() {
        try {
            flush();
        } catch (IOException | RuntimeException e) {
            synchronized (this) {
                dirty = true;
            }
            LOG.warn("Cannot write {}: {}; the values stay in memory and are tried again on the next write",
                    path, e.toString());
        }
    }

    /** Stops the timer; a write not yet made is dropped (flush first). */
    void close() {
        if (timer != null) {
            timer.shutdownNow();
        }
    }
}
