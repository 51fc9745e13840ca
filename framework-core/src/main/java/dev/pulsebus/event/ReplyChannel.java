package dev.pulsebus.event;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * How a message event's replies reach its chat. The pipeline binds one to every message event it
 * delivers; an event made elsewhere has {@link #UNBOUND}, whose replies fail.
 */
@FunctionalInterface
public interface ReplyChannel {

    /** Sends {@code message} to the chat of {@code to}, as a reply to it; completes with the platform's message id. */
    CompletionStage<String> reply(MessageEvent to, Message message);

    /**
     * Asks the chat of {@code to} and waits for the answer ({@link Ask}); the stage completes with the
     * answering message or fails with an {@link AskException}. A channel that cannot ask fails it at once
     * ({@link AskException.Reason#CLOSED}).
     */
    default CompletionStage<MessageEvent> ask(MessageEvent to, Ask ask) {
        return CompletableFuture.failedFuture(new AskException(AskException.Reason.CLOSED,
                "event " + to.id() + " did not come through a pipeline, so it cannot ask"));
    }

    ReplyChannel UNBOUND = new ReplyChannel() {
        @Override
        public CompletionStage<String> reply(MessageEvent to, Message message) {
            return CompletableFuture.failedFuture(new IllegalStateException(
                    "event " + to.id() + " did not come through a pipeline, so it has no way to reply"));
        }
    };
}
