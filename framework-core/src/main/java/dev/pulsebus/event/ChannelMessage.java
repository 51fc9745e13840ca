package dev.pulsebus.event;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/** A message in channel {@code channelId} of guild {@code guildId} from {@code userId}. */
public record ChannelMessage(String id, Instant time, Self self, String subType, String messageId, Message message,
                             String userId, String guildId, String channelId, ReplyChannel replyChannel,
                             Map<String, Object> extra)
        implements MessageEvent {

    public ChannelMessage {
        Checks.message(id, time, self, messageId, message, userId);
        Checks.id("guildId", guildId);
        Checks.id("channelId", channelId);
        subType = Checks.subType(subType);
        replyChannel = Checks.channel(replyChannel);
        extra = Checks.extra(extra);
    }

    /** Without platform fields beyond the record's own ({@link #extra()} empty). */
    public ChannelMessage(String id, Instant time, Self self, String subType, String messageId, Message message,
            String userId, String guildId, String channelId, ReplyChannel replyChannel) {
        this(id, time, self, subType, messageId, message, userId, guildId, channelId, replyChannel, Map.of());
    }

    @Override
    public String detailType() {
        return ChatRef.CHANNEL;
    }

    @Override
    public ChatRef chat() {
        return ChatRef.channel(self.platform(), guildId, channelId);
    }

    @Override
    public Object orderingKey() {
        return chat();
    }

    @Override
    public ChannelMessage withReplyChannel(ReplyChannel channel) {
        return new ChannelMessage(id, time, self, subType, messageId, message, userId, guildId, channelId, channel, extra);
    }
}
