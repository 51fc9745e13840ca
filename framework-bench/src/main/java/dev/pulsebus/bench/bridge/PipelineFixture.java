package dev.pulsebus.bench.bridge;

import dev.pulsebus.bus.EventBus;
import dev.pulsebus.command.Command;
import dev.pulsebus.command.CommandRouter;
import dev.pulsebus.event.GroupMessage;
import dev.pulsebus.event.Message;
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
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        bus = EventBus.builder().meterRegistry(registry).build();
        bus.subscribe(GroupMessage.class, handler::accept);
        CommandRouter commands = CommandRouter.builder().meterRegistry(new SimpleMeterRegistry()).build();
        for (int i = 0; i < 100; i++) {
            commands.register(Command.named("cmd" + i).handler(c -> { }));
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
