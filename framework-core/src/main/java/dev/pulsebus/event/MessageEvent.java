package dev.pulsebus.event;

import dev.pulsebus.bus.KeyedEvent;
import java.util.Map;
import java.util.concurrent.CompletionStage;

/**
 * A message in a private chat, a group or a channel. Subscribing to {@code MessageEvent} on the bus
 * receives all three. Its ordering key is its chat, so blocking handlers see one chat's messages in order.
 */
public sealed interface MessageEvent extends Event, KeyedEvent permits PrivateMessage, GroupMessage, ChannelMessage {

    /** The platform's id of the message, for replies and deduplication. */
    String messageId();

    Message message();

    /** The sender. */
    String userId();

    /** The chat the message was posted in. */
    ChatRef chat();

    /**
     * What the platform sent that this record has no component for (a sender's nickname, the raw text),
     * by the platform's field names, as JSON values (maps, lists, strings, numbers, booleans); immutable,
     * empty when the adapter keeps nothing. An adapter may have it built at its first read
     * ({@link FieldMap#deferred}), on the thread that reads it; it is safe to read from any thread.
     */
    Map<String, Object> extra();

    /** How replies reach the chat; set by the pipeline. */
    ReplyChannel replyChannel();

    /** This event with replies going through {@code channel}. */
    MessageEvent withReplyChannel(ReplyChannel channel);

    @Override
    default String type() {
        return "message";
    }

    /** Answers in this message's chat; completes with the platform's message id, or fails. */
    default CompletionStage<String> reply(String text) {
        return replyChannel().reply(this, Message.text(text));
    }

    default CompletionStage<String> reply(Message message) {
        return replyChannel().reply(this, message);
    }

    /**
     * Asks this message's sender {@code prompt} in its chat; the stage completes with their next message
     * there (which is consumed: it runs no command and reaches no handler), or fails with an
     * {@link AskException} (timeout, {@code /cancel}, ...). See {@link Ask} for other answers.
     */
    default CompletionStage<MessageEvent> ask(String prompt) {
        return replyChannel().ask(this, Ask.of(prompt));
    }

    /** Asks as {@code ask} says; see {@link #ask(String)}. */
    default CompletionStage<MessageEvent> ask(Ask ask) {
        return replyChannel().ask(this, ask);
    }
}
