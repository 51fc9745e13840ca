package dev.pulsebus.event;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/** A message in group {@code groupId} from {@code userId}. */
public record GroupMessage(String id, Instant time, Self self, String subType, String messageId, Message message,
                           String userId, String groupId, ReplyChannel replyChannel,
                           Map<String, Object> extra) implements MessageEvent {

    public GroupMessage {
        Checks.message(id, time, self, messageId, message, userId);
        Checks.id("groupId", groupId);
        subType = Checks.subType(subType);
        replyChannel = Checks.channel(replyChannel);
        extra = Checks.extra(extra);
    }

    /** Without platform fields beyond the record's own ({@link #extra()} empty). */
    public GroupMessage(String id, Instant time, Self self, String subType, String messageId, Message message,
            String userId, String groupId, ReplyChannel replyChannel) {
        this(id, time, self, subType, messageId, message, userId, groupId, replyChannel, Map.of());
    }

    @Override
    public String detailType() {
        return ChatRef.GROUP;
    }

    @Override
    public ChatRef chat() {
        return ChatRef.group(self.platform(), groupId);
    }

    @Override
    public Object orderingKey() {
        return groupId;
    }

    @Override
    public GroupMessage withReplyChannel(ReplyChannel channel) {
        return new GroupMessage(id, time, self, subType, messageId, message, userId, groupId, channel, extra);
    }
}
