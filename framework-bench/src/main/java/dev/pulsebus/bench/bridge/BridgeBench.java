package dev.pulsebus.bench.bridge;

import dev.pulsebus.event.GroupMessage;
import dev.pulsebus.internal.CallCosts;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The bridge suite: a platform message from the adapter through deduplication, the transcript tap, the
 * command router (a miss) and the bus to one handler. Each operation makes its event as an adapter would
 * (a fresh id), so that cost is in the figure.
 */
@State(Scope.Benchmark)
public class BridgeBench {

    static final int FLOOD = 5000;

    private PipelineFixture withTranscript;
    private PipelineFixture withoutTranscript;
    private PipelineFixture costed;
    private int n;

    @Setup(Level.Trial)
    public void setUp(Blackhole bh) throws Exception {
        withTranscript = new PipelineFixture(true, bh::consume);
        withoutTranscript = new PipelineFixture(false, bh::consume);
        costed = new PipelineFixture(true, bh::consume,
                CallCosts.create(new SimpleMeterRegistry(), CallCosts.DEFAULT_SAMPLE_EVERY));
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        withTranscript.close();
        withoutTranscript.close();
        costed.close();
    }

    @Benchmark
    public Object single_handler__pulsebus() {
        GroupMessage m = withTranscript.next(n++);
        return withTranscript.adapter.inject(m);
    }

    /** The same, the handler and the commands a module's, their costs measured (bus.cost_sample_every). */
    @Benchmark
    public Object single_handler_costed__pulsebus() {
        GroupMessage m = costed.next(n++);
        return costed.adapter.inject(m);
    }

    /** The same work as {@code single_handler__pulsebus}, measured beside it in the same run: the peer. */
    @Benchmark
    public Object single_handler_costed__single_handler() {
        GroupMessage m = withTranscript.next(n++);
        return withTranscript.adapter.inject(m);
    }

    @Benchmark
    public Object single_handler_no_transcript__pulsebus() {
        GroupMessage m = withoutTranscript.next(n++);
        return withoutTranscript.adapter.inject(m);
    }

    @Benchmark
    @OperationsPerInvocation(FLOOD)
    public void flood_5000__pulsebus(Blackhole bh) {
        for (int i = 0; i < FLOOD; i++) {
            bh.consume(withTranscript.adapter.inject(withTranscript.next(n++)));
        }
    }

    /** Latency of one round of 5000. */
    @Benchmark
    public void flood_5000__pulsebus_round(Blackhole bh) {
        for (int i = 0; i < FLOOD; i++) {
            bh.consume(withTranscript.adapter.inject(withTranscript.next(n++)));
        }
    }
}
