package dev.pulsebus.bench.harness;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * How far one row's rounds (JMH iterations, or the harness's own rounds) lie apart: their minimum,
 * median and maximum, and a 95 % confidence interval of the median where there are enough rounds for
 * one (six or more: the distribution-free interval of order statistics, ranks {@code n/2 ± 0.98 √n});
 * {@code null} bounds where there are not.
 */
record Spread(double min, double median, double max, Double ciLow, Double ciHigh) {

    /** A row whose slowest round is more than this times its fastest ({@code max / min}) is UNSTABLE. */
    static final double UNSTABLE_RATIO = 2.0;

    /** The spread of {@code rounds}, or null when there are fewer than two (one round has no spread). */
    static Spread of(List<Double> rounds) {
        if (rounds == null || rounds.size() < 2) {
            return null;
        }
        List<Double> sorted = new ArrayList<>(rounds);
        Collections.sort(sorted);
        int n = sorted.size();
        double median = median(sorted);
        Double low = null;
        Double high = null;
        int j = (int) Math.floor(n / 2.0 - 0.98 * Math.sqrt(n)); // 1-based ranks
        int k = (int) Math.ceil(1 + n / 2.0 + 0.98 * Math.sqrt(n));
        if (j >= 1 && k <= n) {
            low = sorted.get(j - 1);
            high = sorted.get(k - 1);
        }
        return new Spread(sorted.get(0), median, sorted.get(n - 1), low, high);
    }

    /** The median of {@code sorted} (ascending): the middle value, or the mean of the middle two. */
    static double median(List<Double> sorted) {
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    /** {@code (max - min) / median}: the width of the rounds relative to their middle. */
    double relativeRange() {
        return median == 0 ? 0 : (max - min) / Math.abs(median);
    }

    /** The slowest round against the fastest: over {@link #UNSTABLE_RATIO} means the row cannot be judged. */
    boolean unstable() {
        double lo = Math.min(Math.abs(min), Math.abs(max));
        double hi = Math.max(Math.abs(min), Math.abs(max));
        return lo == 0 ? hi > 0 : hi / lo > UNSTABLE_RATIO;
    }
}
