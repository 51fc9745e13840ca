package dev.pulsebus.bench.bridge;

import dev.pulsebus.bus.EventBus;
import dev.pulsebus.command.Command;
import dev.pulsebus.command.CommandRouter;
import dev.pulsebus.event.GroupMessage;
import dev.pulsebus.event.Message;
import dev.pulsebus.internal.CallCosts;
import dev.pulsebus.pipeline.InMemoryAdapter;
import dev.pulsebus.pipeline.MessagePipeline;
import dev.pulsebus.transcript.InMemoryTranscriptStore;
import dev.pulsebus.transcript.TranscriptWriter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.function.Consumer;

/**
 * The default pipeline as a bot runs it: an in-memory adapter, 100 commands, one inline handler on the
 * bus, Micrometer on, and (optionally) transcripts into the in-memory store.
 */
final class PipelineFixture implements AutoCloseable {

    final EventBus bus;
    final InMemoryAdapter adapter = new InMemoryAdapter("bench", "bot", 16);
    final MessagePipeline pipeline;
    private final Message text = Message.text("hello everyone, how is it going?");

    PipelineFixture(boolean transcripts, Consumer<GroupMessage> handler) throws Exception {
        this(transcripts, handler, CallCosts.off());
    }

    /**
     * @param costs where the handler's and the commands' costs are measured: with a table that measures, they
     *              are a module's ({@code bench}), as a bot's own code is
     */
    PipelineFixture(boolean transcripts, Consumer<GroupMessage> handler, CallCosts costs) throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        bus = EventBus.builder().meterRegistry(registry).callCosts(costs).build();
        String module = costs.sampleEvery() > 0 ? "bench" : null;
        if (module != null) {
            bus.on(GroupMessage.class).name(module).subscribe(handler::accept);
        } else {
            bus.subscribe(GroupMessage.class, handler::accept);
        }
        CommandRouter commands = CommandRouter.builder().meterRegistry(new SimpleMeterRegistry()).callCosts(costs)
                .build();
        for (int i = 0; i < 100; i++) {
            Command c = Command.named("cmd" + i).handler(call -> { });
            if (module != null) {
                commands.register(module, c);
            } else {
                commands.register(c);
            }
        }
        MessagePipeline.Builder b = MessagePipeline.builder(bus).adapter(adapter).commands(commands)
                .meterRegistry(registry);
        if (transcripts) {
            b.transcripts(TranscriptWriter.builder(new InMemoryTranscriptStore(1_000)).meterRegistry(registry).build());
        }
        pipeline = b.build().start();
    }

    /** A new group message (fresh event id, as a platform sends it) in one of 16 chats. */
    GroupMessage next(int i) {
        return adapter.groupMessage("group-" + (i & 15), "user-" + (i & 255), text);
    }

    @Override
    public void close() throws Exception {
        pipeline.close();
        bus.close();
    }
}
