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

    /** A count that grows as what is waited for happens (a metric, rows stored); may throw. */
    @FunctionalInterface
    public interface Count {
        double get() throws Exception;
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

    /**
     * Waits until {@code count} reaches {@code target} for as long as it keeps growing: true once it has, false
     * once it has not grown for {@code stall} (after one last check). For a load that a slow or busy machine
     * only drains more slowly: the test fails on work that stopped, not on the machine's speed (the test's own
     * timeout still bounds it).
     */
    public static boolean whileGrowing(double target, Duration stall, Count count) throws Exception {
        double last = count.get();
        long grew = System.nanoTime();
        while (last < target) {
            if (System.nanoTime() - grew >= stall.toNanos()) {
                return count.get() >= target;
            }
            Thread.sleep(EVERY.multipliedBy(10));
            double now = count.get();
            if (now > last) {
                last = now;
                grew = System.nanoTime();
            }
        }
        return true;
    }
}
