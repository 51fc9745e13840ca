package dev.pulsebus.testing;

import java.time.Duration;

/**
 * Waits in a test for something another thread does: checks a condition until it holds or a timeout
 * passes, so that a test waits as long as a slow machine needs and no longer than a fast one does.
 */
public final class Await {

    private static final Duration EVERY = Duration.ofMillis(10);

    /** What is waited for; may throw (an HTTP call, a read of the store). */
    @FunctionalInterface
    public interface Condition {
        boolean met() throws Exception;
    }

    private Await() {
    }

    /** {@link #until(Duration, Duration, Condition)}, checking every 10 ms. */
    public static boolean until(Duration timeout, Condition condition) throws Exception {
        return until(timeout, EVERY, condition);
    }

    /**
     * Checks {@code condition} at once and then every {@code every} until it holds (true) or
     * {@code timeout} has passed (false, after one last check); the caller asserts on what it waited for.
     */
    public static boolean until(Duration timeout, Duration every, Condition condition) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.met()) {
            if (System.nanoTime() - deadline >= 0) {
                return false;
            }
            Thread.sleep(every);
        }
        return true;
    }
}
