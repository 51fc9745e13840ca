package dev.pulsebus.server;

import dev.pulsebus.internal.SlowTraces;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.prometheus.metrics.tracer.common.SpanContext;
import org.jspecify.annotations.Nullable;

/**
 * Exemplars for the histograms timed within a command's call ({@code pulsebus_command_duration_seconds}): the
 * call's trace id, the one its trace is kept under when it is slow ({@code GET /api/admin/slow}), so that a
 * latency spike on the dashboard links to it. Prometheus reads them from the OpenMetrics exposition; outside a
 * command's call there is none. Thread-safe.
 */
final class CommandExemplars implements SpanContext {

    /** Set once the bot's runtime is made, which is after the meter registry that asks. */
    private volatile @Nullable ObservationRegistry observations;

    void observe(ObservationRegistry registry) {
        this.observations = registry;
    }

    private SlowTraces.@Nullable Call call() {
        ObservationRegistry r = observations;
        Observation current = r == null ? null : r.getCurrentObservation();
        return current != null && current.getContextView() instanceof SlowTraces.Call c && c.isCommand() ? c : null;
    }

    @Override
    public @Nullable String getCurrentTraceId() {
        SlowTraces.Call c = call();
        return c == null ? null : c.traceId();
    }

    @Override
    public @Nullable String getCurrentSpanId() {
        SlowTraces.Call c = call();
        return c == null ? null : c.traceId();
    }

    @Override
    public boolean isCurrentSpanSampled() {
        return call() != null;
    }

    @Override
    public void markCurrentSpanAsExemplar() {
        // every command call's trace id may be an exemplar: nothing to mark
    }
}
