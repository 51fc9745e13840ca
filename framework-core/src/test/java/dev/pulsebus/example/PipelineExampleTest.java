package dev.pulsebus.example;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.pulsebus.bus.EventBus;
import dev.pulsebus.command.Command;
import dev.pulsebus.command.CommandRouter;
import dev.pulsebus.event.ChatRef;
import dev.pulsebus.event.GroupMessage;
import dev.pulsebus.event.Message;
import dev.pulsebus.event.MessageEvent;
import dev.pulsebus.pipeline.InMemoryAdapter;
import dev.pulsebus.pipeline.InboundResult;
import dev.pulsebus.pipeline.MessagePipeline;
import dev.pulsebus.pipeline.OutboundMessage;
import org.junit.jupiter.api.Test;

class PipelineExampleTest {

    @Test
    void aCommandAndAHandlerAnswerInTheChat() throws Exception {
        InMemoryAdapter chat = new InMemoryAdapter("test", "bot");  // the platform's name, the bot's id
        CommandRouter commands = CommandRouter.builder().build();
        commands.register(Command.named("ping").handler(call -> call.reply("pong")));
        try (EventBus bus = EventBus.create();
             MessagePipeline pipeline = MessagePipeline.builder(bus).commands(commands).adapter(chat).build().start()) {
            bus.subscribe(MessageEvent.class, m -> m.reply("you said: " + m.message().plainText()));

            GroupMessage ping = chat.groupMessage("g1", "ann", Message.text("/ping"));  // a message to the bot
            assertThat(chat.inject(ping)).isEqualTo(InboundResult.COMMAND);                // runs it on this thread
            assertThat(chat.inject(chat.privateMessage("bob", Message.text("hi")))).isEqualTo(InboundResult.PUBLISHED);

            assertThat(chat.sent()).extracting(OutboundMessage::chat, sent -> sent.message().plainText())
                    .containsExactly(tuple(ChatRef.group("test", "g1"), "pong"),
                            tuple(ChatRef.privateChat("test", "bob"), "you said: hi"));
        }
    }
}
