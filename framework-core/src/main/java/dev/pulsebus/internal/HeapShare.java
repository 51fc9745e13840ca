package dev.pulsebus.internal;

/**
 * How many entries a table kept in memory may hold, from the heap this JVM may use ({@code -Xmx}): a bot's
 * heap is small by default ({@code ./pulsebus} gives 32 MB), and a table sized for a large one would not fit
 * it when full. Internal to PulseBus: not an API.
 */
public final class HeapShare {

    private HeapShare() {
    }

    /**
     * The entries of about {@code bytesEach} that fill {@code 1/share} of the maximum heap, between {@code min}
     * and {@code max}.
     */
    public static int entries(int share, long bytesEach, int min, int max) {
        return entries(Runtime.getRuntime().maxMemory(), share, bytesEach, min, max);
    }

    static int entries(long maxHeap, int share, long bytesEach, int min, int max) {
        long fit = maxHeap == Long.MAX_VALUE ? max : maxHeap / share / bytesEach;
        return (int) Math.max(min, Math.min(max, fit));
    }
}
