package dev.pulsebus.event;

import java.util.Objects;

/**
 * A chat on a platform: a private chat (with user {@code id}), a group, or a channel
 * ({@code id} = {@code guild/channel}). The address of transcripts and of outbound messages.
 */
public record ChatRef(String platform, String detailType, String id) {

    public static final String PRIVATE = "private";
    public static final String GROUP = "group";
    public static final String CHANNEL = "channel";

    public ChatRef {
        Objects.requireNonNull(platform, "platform");
        Objects.requireNonNull(id, "id");
        if (!PRIVATE.equals(detailType) && !GROUP.equals(detailType) && !CHANNEL.equals(detailType)) {
            throw new IllegalArgumentException("detailType must be private, group or channel, was " + detailType);
        }
    }

    public static ChatRef group(String platform, String groupId) {
        return new ChatRef(platform, GROUP, groupId);
    }

    public static ChatRef privateChat(String platform, String userId) {
        return new ChatRef(platform, PRIVATE, userId);
    }

    public static ChatRef channel(String platform, String guildId, String channelId) {
        return new ChatRef(platform, CHANNEL, guildId + "/" + channelId);
    }
}
