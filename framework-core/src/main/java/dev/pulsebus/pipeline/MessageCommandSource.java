package dev.pulsebus.pipeline;

import dev.pulsebus.command.CommandSource;
import dev.pulsebus.event.Ask;
import dev.pulsebus.event.GroupMessage;
import dev.pulsebus.event.MessageEvent;
import java.util.Locale;
import java.util.concurrent.CompletionStage;

/** A message event as the command router reads it: text without the bot's mention, replies through the pipeline. */
final class MessageCommandSource implements CommandSource {

    private final MessageEvent event;
    private final String text;
    private final Locale locale;
    private final MessagePipeline pipeline;

    MessageCommandSource(MessageEvent event, Locale locale, MessagePipeline pipeline) {
        this.event = event;
        this.text = event.message().commandText(event.self().userId());
        this.locale = locale;
        this.pipeline = pipeline;
    }

    @Override
    public String text() {
        return text;
    }

    @Override
    public String userId() {
        return event.userId();
    }

    @Override
    public String platform() {
        return event.chat().platform();
    }

    @Override
    public String chatId() {
        return event instanceof GroupMessage g ? g.groupId() : event.chat().id();
    }

    @Override
    public boolean mentionsBot() {
        return event.message().mentions(event.self().userId());
    }

    @Override
    public Locale locale() {
        return locale;
    }

    @Override
    public CompletionStage<String> reply(String reply) {
        return pipeline.reply(event, reply);
    }

    @Override
    public CompletionStage<MessageEvent> ask(Ask ask) {
        return pipeline.ask(event, ask);
    }
}
