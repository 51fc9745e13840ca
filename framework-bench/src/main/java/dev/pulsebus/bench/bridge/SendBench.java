package dev.pulsebus.bench.bridge;

import dev.pulsebus.event.GroupMessage;
import dev.pulsebus.event.MessageEvent;
import java.util.concurrent.atomic.AtomicReference;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The send suite: a handler's {@code event.reply(...)} through the outbound path (adapter lookup, the
 * in-memory adapter, the sent-message transcript record, the counters) until the adapter has it.
 */
@State(Scope.Benchmark)
public class SendBench {

    private PipelineFixture fixture;
    private MessageEvent received;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        AtomicReference<GroupMessage> seen = new AtomicReference<>();
        fixture = new PipelineFixture(true, seen::set);
        fixture.adapter.inject(fixture.next(0));
        received = seen.get();
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        fixture.close();
    }

    @Benchmark
    public Object reply__pulsebus() {
        return received.reply("pong");
    }
}
