package dev.pulsebus.bench.router;

import dev.pulsebus.bus.EventBus;
import dev.pulsebus.event.Ask;
import dev.pulsebus.event.GroupMessage;
import dev.pulsebus.event.Message;
import dev.pulsebus.pipeline.InMemoryAdapter;
import dev.pulsebus.pipeline.MessagePipeline;
import java.time.Duration;

/**
 * A pipeline with a pending ask in each of {@code chats} chats (an hour's timeout: none ends while measured),
 * and {@link #plain}, a message in a chat of its own that no ask waits in.
 */
public final class AsksFixture implements AutoCloseable {

    public final EventBus bus = EventBus.builder().build();
    public final InMemoryAdapter adapter = new InMemoryAdapter("bench", "bot", 16);
    public final MessagePipeline pipeline;
    public final GroupMessage plain;

    public AsksFixture(int chats) throws Exception {
        pipeline = MessagePipeline.builder(bus).adapter(adapter).maxAsks(chats + 1).build().start();
        for (int i = 0; i < chats; i++) {
            pipeline.ask(adapter.groupMessage("asking-" + i, "user-" + i, Message.text("/start")),
                    Ask.of("").timeout(Duration.ofHours(1)));
        }
        plain = adapter.groupMessage("quiet", "user-1", Message.text("hello everyone, how is it going today?"));
    }

    @Override
    public void close() throws Exception {
        pipeline.close();
        bus.close();
    }
}
