package ${package};

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulsebus.bus.EventBus;
import dev.pulsebus.command.CommandRouter;
import dev.pulsebus.event.Message;
import dev.pulsebus.module.ModuleHost;
import dev.pulsebus.pipeline.InMemoryAdapter;
import dev.pulsebus.pipeline.MessagePipeline;
import dev.pulsebus.pipeline.OutboundMessage;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The module in a bot of its own: a pipeline with an in-memory adapter (no platform behind it) plays the chat's
 * messages and keeps the bot's replies.
 */
class ${className}Test {

    private final EventBus bus = EventBus.create();
    private final CommandRouter commands = CommandRouter.builder().build();
    private final InMemoryAdapter chat = new InMemoryAdapter("test", "bot");  // the platform's name, the bot's id
    private MessagePipeline pipeline;
    private ModuleHost modules;

    /** Starts the bot with the module loaded, given its settings (its [modules.${moduleName}] table). */
    private void load(Map<String, String> settings) throws Exception {
        pipeline = MessagePipeline.builder(bus).commands(commands).adapter(chat).build().start();
        modules = ModuleHost.builder(bus, commands).pipeline(pipeline).settings(name -> settings).build();
        modules.load(new ${className}());
    }

    @AfterEach
    void close() throws Exception {
        modules.close();
        pipeline.close();
        bus.close();
    }

    private List<String> replies() {
        return chat.sent().stream().map(OutboundMessage::message).map(Message::plainText).toList();
    }

    @Test
    void greetsWhoAsked() throws Exception {
        load(Map.of());

        chat.inject(chat.groupMessage("g1", "ann", Message.text("/${moduleName}")));
        chat.inject(chat.groupMessage("g1", "bob", Message.text("/${moduleName} everyone")));

        assertThat(replies()).containsExactly("Hello, ann!", "Hello, everyone!");
    }

    @Test
    void theGreetingIsASetting() throws Exception {
        load(Map.of("greeting", "Hi"));

        chat.inject(chat.privateMessage("ann", Message.text("/${moduleName}")));

        assertThat(replies()).containsExactly("Hi, ann!");
    }
}
