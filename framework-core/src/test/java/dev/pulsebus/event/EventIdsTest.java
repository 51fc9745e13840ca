package dev.pulsebus.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class EventIdsTest {

    private static final String MAX = "x".repeat(Event.MAX_ID_LENGTH);
    private static final String TOO_LONG = MAX + "x";
    private static final Self BOT = new Self("p", "1");

    @Test
    void userChatAndBotIdsAreAtMost64Characters() {
        assertThat(new GroupMessage("e", Instant.EPOCH, new Self("p", MAX), "", "m", Message.text("hi"), MAX, MAX,
                null).groupId()).isEqualTo(MAX);
        assertThatThrownBy(() -> new Self("p", TOO_LONG)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("userId is 65 characters long, more than 64");
        assertThatThrownBy(() -> new PrivateMessage("e", Instant.EPOCH, BOT, "", "m", Message.text("hi"), TOO_LONG,
                null)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("userId");
        assertThatThrownBy(() -> new GroupMessage("e", Instant.EPOCH, BOT, "", "m", Message.text("hi"), "u", TOO_LONG,
                null)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("groupId");
        assertThatThrownBy(() -> new ChannelMessage("e", Instant.EPOCH, BOT, "", "m", Message.text("hi"), "u", "g",
                TOO_LONG, null)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("channelId");
    }
}
