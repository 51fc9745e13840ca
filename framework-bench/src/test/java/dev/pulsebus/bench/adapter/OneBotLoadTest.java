package dev.pulsebus.bench.adapter;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class OneBotLoadTest {

    @Test
    void theDoNothingBotAnswersEachMessageWithTheActionPulseBusWouldSend() {
        ByteBufAllocator alloc = ByteBufAllocator.DEFAULT;
        ByteBuf event = V11Frames.echoMessage(alloc, 1_000_017);
        ByteBuf action = V11Frames.action(alloc, event, 42);
        try {
            assertThat(action.toString(StandardCharsets.UTF_8)).isEqualTo("{\"action\":\"send_group_msg\",\"params\":"
                    + "{\"group_id\":100001,\"message\":[{\"type\":\"reply\",\"data\":{\"id\":\"1000017\"}},"
                    + "{\"type\":\"text\",\"data\":{\"text\":\"hi\"}}]},\"echo\":\"42\"}");
            assertThat(V11Frames.repliedTo(action)).isEqualTo(1_000_017);
        } finally {
            event.release();
            action.release();
        }
    }

    @Test
    void everyMessageOfTheOpenLoopAndTheFloodIsAnsweredAndTimed() throws Exception {
        try (OneBotLoad load = new OneBotLoad(); InstantBot bot = new InstantBot()) {
            OneBotLoad.Result paced = load.openLoop(bot.uri(), 1000, Duration.ofMillis(100), Duration.ofMillis(300));
            OneBotLoad.Result flood = load.flood(bot.uri(), 16, Duration.ofMillis(100), Duration.ofMillis(300));

            assertThat(paced.unanswered()).isZero();
            assertThat(paced.answered()).isBetween(250L, 350L);
            assertThat(paced.latencyNanos().getTotalCount()).isEqualTo(paced.answered());
            assertThat(flood.unanswered()).isZero();
            assertThat(flood.answered()).isPositive();
        }
    }
}
