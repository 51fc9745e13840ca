package dev.pulsebus.event;

import java.time.Instant;
import java.util.Map;

/** A message in a private chat with {@code userId}. */
public record PrivateMessage(String id, Instant time, Self self, String subType, String messageId, Message message,
                             String userId, ReplyChannel replyChannel,
                             Map<String, Object> extra) implements MessageEvent {

    public PrivateMessage {
        Checks.message(id, time, self, messageId, message, userId);
        subType = Checks.subType(subType);
        replyChannel = Checks.channel(replyChannel);
        extra = Checks.extra(extra);
    }

    /** Without platform fields beyond the record's own ({@link #extra()} empty). */
    public PrivateMessage(String id, Instant time, Self self, String subType, String messageId, Message message,
            String userId, ReplyChannel replyChannel) {
        this(id, time, self, subType, messageId, message, userId, replyChannel, Map.of());
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
        return new PrivateMessage(id, time, self, subType, messageId, message, userId, channel, extra);
    }
}
