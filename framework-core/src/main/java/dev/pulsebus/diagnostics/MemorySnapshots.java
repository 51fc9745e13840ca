package dev.pulsebus.diagnostics;

import dev.pulsebus.internal.LruTable;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Labelled memory snapshots for finding where memory goes: take one before and after a suspect piece of
 * work (a module's load, a batch, an hour of traffic) under the same label, and the snapshot carries the
 * change. Remembers the last snapshot of at most {@link #MAX_LABELS} labels, the least recently used
 * evicted past that, so calling it forever with ever new labels leaks nothing. Thread-safe.
 *
 * <p>RSS comes from {@code /proc/self/status} (Linux); heap used from the memory MX bean (it includes
 * garbage not yet collected: call {@link System#gc()} first for live data); allocated bytes from the
 * calling thread's counter.
 */
public final class MemorySnapshots {

    public static final int MAX_LABELS = 1024;
    private static final Logger LOG = LoggerFactory.getLogger(MemorySnapshots.class);
    private static final LruTable<MemorySnapshot> LAST = new LruTable<>(MAX_LABELS);
    private static final MemoryMXBean MEMORY = ManagementFactory.getMemoryMXBean();
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static final Path STATUS = Path.of("/proc/self/status");

    private MemorySnapshots() {
    }

    /** A snapshot now under {@code label}, with the change since the previous one of that label. */
    public static MemorySnapshot snapshot(String label) {
        long rss = rss();
        long heap = MEMORY.getHeapMemoryUsage().getUsed();
        long allocated = THREADS.getCurrentThreadAllocatedBytes();
        Instant now = Instant.now();
        synchronized (LAST) {
            MemorySnapshot prev = LAST.get(label);
            MemorySnapshot s = prev == null
                    ? new MemorySnapshot(label, now, rss, heap, allocated, true, 0, 0, 0)
                    : new MemorySnapshot(label, now, rss, heap, allocated, false,
                            rss < 0 || prev.rssBytes() < 0 ? -1 : rss - prev.rssBytes(),
                            heap - prev.heapUsedBytes(), allocated - prev.threadAllocatedBytes());
            LAST.put(label, s);
            return s;
        }
    }

    /** Takes a snapshot and writes it at TRACE (logger {@code dev.pulsebus.diagnostics.MemorySnapshots}). */
    public static MemorySnapshot logSnapshot(String label) {
        MemorySnapshot s = snapshot(label);
        LOG.trace("{}", s);
        return s;
    }

    /** How many labels are remembered now (at most {@link #MAX_LABELS}). */
    public static int labels() {
        return LAST.size();
    }

    /** This process's resident set size in bytes, or -1 without {@code /proc}. */
    static long rss() {
        return rss(STATUS);
    }

    /** The resident set size of process {@code pid} in bytes (from {@code /proc}), or -1 where there is none. */
    public static long rssBytes(long pid) {
        return rss(Path.of("/proc", Long.toString(pid), "status"));
    }

    private static long rss(Path status) {
        try {
            for (String line : Files.readAllLines(status)) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.substring(6).replace("kB", "").trim()) * 1024;
                }
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return -1;
    }
}
