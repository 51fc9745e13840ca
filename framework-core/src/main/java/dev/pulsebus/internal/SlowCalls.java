package dev.pulsebus.internal;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Handler and command runs slower than a threshold ({@code bus.slow_handler_ms}, default 1 s): each one is
 * counted in {@code pulsebus_handler_slow_total{module}} and logged at WARN with its module, handler and
 * event type, the first time and then at most once a minute per handler ({@link FailureLog#warning}). It
 * reads no clock: callers pass the time they measured anyway (a sampled inline run, a blocking task, a
 * command). The {@code module} label is bounded: past {@link #MAX_MODULES} modules, further ones count as
 * {@code other}. Thread-safe. Internal to PulseBus: not an API.
 */
public final class SlowCalls {

    /** The default threshold. */
    public static final Duration DEFAULT_THRESHOLD = Duration.ofSeconds(1);
    /** The {@code module} label of a handler no module owns. */
    public static final String NO_MODULE = "none";
    static final int MAX_MODULES = 256;
    private static final Logger LOG = LoggerFactory.getLogger(SlowCalls.class);
    private static final Duration LOG_INTERVAL = Duration.ofMinutes(1);

    private final long thresholdNanos;
    private final @Nullable MeterRegistry registry;
    private final ConcurrentHashMap<String, Counter> byModule = new ConcurrentHashMap<>();

    /**
     * @param registry where the counter is registered; none: slow runs are only logged
     * @param threshold a run this long or longer is slow; zero turns the warning off
     */
    public SlowCalls(@Nullable MeterRegistry registry, Duration threshold) {
        this.registry = registry;
        this.thresholdNanos = Require.notNegative(threshold, "threshold").toNanos();
    }

    /**
     * What {@code kind} ({@code "handler"}, {@code "command"}) {@code name} of {@code module} reports its
     * runs' times to; its module's counter is registered now, so that it reads 0 before the first slow run.
     */
    public Site site(String module, String kind, String name) {
        return new Site(counter(module), module, kind, name);
    }

    private @Nullable Counter counter(String module) {
        MeterRegistry r = registry;
        if (r == null) {
            return null;
        }
        String label = byModule.containsKey(module) || byModule.size() < MAX_MODULES ? module : "other";
        return byModule.computeIfAbsent(label, m -> Counter.builder("pulsebus.handler.slow")
                .description("Handler and command runs slower than bus.slow_handler_ms (inline handlers: of the"
                        + " sampled runs)")
                .tag("module", m).register(r));
    }

    /** One handler's or command's report of its runs. */
    public final class Site implements RunningHandler.Named {
        private final @Nullable Counter counter;
        private final String module;
        private final String kind;
        private final String name;
        private final FailureLog log = FailureLog.warning(LOG, LOG_INTERVAL);

        private Site(@Nullable Counter counter, String module, String kind, String name) {
            this.counter = counter;
            this.module = module;
            this.kind = kind;
            this.name = name;
        }

        @Override
        public String module() {
            return module;
        }

        /** How log lines name it: {@code command '/hang' of module m}. */
        @Override
        public String toString() {
            return kind + " '" + name + "' of module " + module;
        }

        /** A run of {@code nanos} on {@code eventType}: counted and warned about when it is slow. */
        public void took(long nanos, String eventType) {
            if (thresholdNanos == 0 || nanos < thresholdNanos) {
                return;
            }
            if (counter != null) {
                counter.increment();
            }
            log.warn("Slow {} '{}' of module {}: {} ms on {}, over bus.slow_handler_ms = {} (logged at most once a"
                            + " minute; pulsebus_handler_slow_total counts each)", kind, name, module,
                    TimeUnit.NANOSECONDS.toMillis(nanos), eventType, TimeUnit.NANOSECONDS.toMillis(thresholdNanos));
        }
    }
}
