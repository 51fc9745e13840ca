package dev.pulsebus.event;

import java.time.Instant;
import java.util.Objects;

/** A message in a private chat with {@code userId}. */
public record PrivateMessage(String id, Instant time, Self self, String subType, String messageId, Message message,
                             String userId, ReplyChannel replyChannel) implements MessageEvent {

    public PrivateMessage {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(time, "time");
        Objects.requireNonNull(self, "self");
        Objects.requireNonNull(messageId, "messageId");
        Objects.requireNonNull(message, "message");
        Objects.requireNonNull(userId, "userId");
        subType = subType == null ? "" : subType;
        replyChannel = replyChannel == null ? ReplyChannel.UNBOUND : replyChannel;
    }

    @Override
    public String detailType() {
        return ChatRef.PRIVATE;
    }

    @Override
    public ChatRef chat() {
        return ChatRef.privateChat(self.platform(), userId);
    }

    @Override
    public Object orderingKey() {
        return userId;
    }

    @Override
    public PrivateMessage withReplyChannel(ReplyChannel channel) {
        return new PrivateMessage(id, time, self, subType, messageId, message, userId, channel);
    }
}
