package dev.pulsebus.pipeline;

import dev.pulsebus.event.ChatRef;
import dev.pulsebus.event.Message;
import dev.pulsebus.event.Self;
import java.util.Objects;

/** A message to send: from which bot, to which chat, what, and optionally in reply to which message. */
public record OutboundMessage(Self bot, ChatRef chat, Message message, String replyTo) {

    public OutboundMessage {
        Objects.requireNonNull(bot, "bot");
        Objects.requireNonNull(chat, "chat");
        Objects.requireNonNull(message, "message");
        if (!bot.platform().equals(chat.platform())) {
            throw new IllegalArgumentException("bot " + bot + " is on " + bot.platform()
                    + ", the chat on " + chat.platform());
        }
    }
}
