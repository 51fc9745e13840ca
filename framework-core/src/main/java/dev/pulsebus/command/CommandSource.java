package dev.pulsebus.command;

import dev.pulsebus.event.Ask;
import dev.pulsebus.event.AskException;
import dev.pulsebus.event.MessageEvent;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * What the command router needs of an incoming message. The message pipeline adapts its events to this;
 * tests and embedders may implement it directly.
 *
 * <p>Implementations should return fields, not compute: the router calls {@link #text()} once per message
 * and the id methods on every checked call.
 */
public interface CommandSource {

    /** The message's plain text, without the mention of the bot. */
    String text();

    /** The sender's id on its platform. */
    String userId();

    /**
     * The platform the message came from ({@code onebot11}, {@code onebot12}, {@code telegram}, {@code http},
     * an adapter's {@code platform()}): a {@link #userId()} is only unique on its platform. A pipeline's
     * sources give their event's; the default, {@code ""}, names none, and {@link Permissions#users} admits
     * no user of it.
     */
    default String platform() {
        return "";
    }

    /** The chat's id: a group, channel, or the private chat with the sender. */
    String chatId();

    /** Whether the message mentions this bot (for routers that require a mention). */
    default boolean mentionsBot() {
        return false;
    }

    /** The sender's role in the chat. */
    default SenderRole senderRole() {
        return SenderRole.MEMBER;
    }

    /** The sender's language, for refusals and help. */
    default Locale locale() {
        return Locale.ENGLISH;
    }

    /**
     * Sends {@code text} back to the chat the message came from, as {@link
     * dev.pulsebus.event.MessageEvent#reply(String)} does. The stage completes with the platform's message
     * id, or fails with the reason; it must not throw.
     */
    CompletionStage<String> reply(String text);

    /**
     * Asks the sender in the chat the message came from, as {@link MessageEvent#ask(Ask)} does. A source
     * that cannot ask (one not made by a pipeline) fails the stage with {@link AskException.Reason#CLOSED}.
     */
    default CompletionStage<MessageEvent> ask(Ask ask) {
        return CompletableFuture.failedFuture(new AskException(AskException.Reason.CLOSED,
                "this message did not come through a pipeline, so it cannot ask"));
    }
}
