package dev.pulsebus.server;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import java.time.Duration;
import java.util.Set;

/**
 * Fixed histogram buckets, the same for every latency PulseBus publishes, so that PromQL can compute a
 * quantile ({@code histogram_quantile}) and aggregate it across instances: 50 µs, 100 µs, 250 µs,
 * 500 µs, 1 ms, 2.5 ms, 5 ms, 10 ms, 25 ms, 50 ms, 100 ms, 250 ms, 500 ms, 1 s, 2.5 s, 5 s and 10 s
 * ({@code le} of {@code <name>_seconds_bucket}). Recording into them takes no lock and allocates nothing.
 */
final class SloBuckets {

    static final Duration[] BOUNDS = {
        Duration.ofNanos(50_000), Duration.ofNanos(100_000), Duration.ofNanos(250_000), Duration.ofNanos(500_000),
        Duration.ofMillis(1), Duration.ofNanos(2_500_000), Duration.ofMillis(5), Duration.ofMillis(10),
        Duration.ofMillis(25), Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250),
        Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofMillis(2500), Duration.ofSeconds(5),
        Duration.ofSeconds(10),
    };

    /** {@link #BOUNDS} in nanoseconds, the unit a timer's distribution config counts in. */
    private static final double[] NANOS = java.util.Arrays.stream(BOUNDS).mapToDouble(Duration::toNanos).toArray();

    /** The timers that get the buckets. */
    static final Set<String> TIMERS = Set.of("pulsebus.handler.duration", "pulsebus.longpoll.delivery",
            "pulsebus.kv.commit", "pulsebus.transcripts.batch", "pulsebus.onebot.action.duration",
            "http.server.requests", "pulsebus.command.duration");

    static final MeterFilter FILTER = new MeterFilter() {
        @Override
        public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
            return TIMERS.contains(id.getName())
                    ? DistributionStatisticConfig.builder().serviceLevelObjectives(NANOS).build().merge(config)
                    : config;
        }
    };

    private SloBuckets() {
    }
}
