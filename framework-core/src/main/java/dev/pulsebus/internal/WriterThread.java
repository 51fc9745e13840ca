package dev.pulsebus.internal;

/**
 * Marks the threads that commit writes for others (the KV writer), so that a sync call made on one of
 * them, which would wait for itself forever, fails at once instead. Internal to PulseBus: not an API.
 */
public final class WriterThread {

    private static final ThreadLocal<Boolean> MARK = new ThreadLocal<>();

    private WriterThread() {
    }

    /** Marks the calling thread for its lifetime. */
    public static void mark() {
        MARK.set(Boolean.TRUE);
    }

    public static boolean isCurrent() {
        return MARK.get() != null;
    }
}
