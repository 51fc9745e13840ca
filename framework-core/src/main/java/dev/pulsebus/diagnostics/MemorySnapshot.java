package dev.pulsebus.diagnostics;

import java.time.Instant;

/**
 * The memory of the process at one moment, under a label, with the change since the previous snapshot of
 * the same label ({@code first} is true, and the deltas 0, when there was none). Sizes in bytes;
 * {@code rssBytes} is -1 where {@code /proc} is not available, and so is its delta.
 *
 * @param threadAllocatedBytes bytes allocated so far by the thread that took the snapshot; its delta is
 *                             meaningful when a label's snapshots come from one thread
 */
public record MemorySnapshot(String label, Instant time, long rssBytes, long heapUsedBytes, long threadAllocatedBytes,
                             boolean first, long rssDelta, long heapDelta, long allocatedDelta) {

    /** One line: {@code label: rss 123.4 MB (+1.2 MB), heap 45.6 MB (+0.3 MB), allocated 7.8 MB by this thread}. */
    @Override
    public String toString() {
        return label + ": rss " + mb(rssBytes) + delta(rssDelta) + ", heap " + mb(heapUsedBytes) + delta(heapDelta)
                + ", allocated " + mb(first ? threadAllocatedBytes : allocatedDelta) + (first ? " so far" : " since")
                + " by this thread";
    }

    private String delta(long d) {
        return first ? "" : " (" + (d >= 0 ? "+" : "-") + mb(Math.abs(d)) + ")";
    }

    private static String mb(long bytes) {
        return bytes < 0 ? "n/a" : String.format("%.1f MB", bytes / 1e6);
    }
}
