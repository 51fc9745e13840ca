package dev.pulsebus.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulsebus.event.ChatRef;
import dev.pulsebus.event.Message;
import dev.pulsebus.transcript.TranscriptRecord;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ResponsesTest {

    /** Times as IsoInstant writes them, and as Instant.toString does past its years 0000-9999. */
    private static final Instant[] TIMES = {Instant.ofEpochMilli(1_700_000_000_123L), Instant.EPOCH,
            Instant.parse("2024-02-29T23:59:59.999Z"), Instant.parse("+12345-06-07T08:09:10.011Z"),
            Instant.parse("-0042-01-01T00:00:00Z"), Instant.ofEpochSecond(1_700_000_000L, 123_456_789)};

    @Test
    void aHistoryCopiedFromWrittenMessagesIsByteForByteTheOneWrittenWhole() {
        List<TranscriptRecord> records = new ArrayList<>();
        String[] texts = {"plain", "quote \" and backslash \\", "tab\tnew line\ncontrol \u0001", "naïve 中文 😀",
                "</script>&<>", ""};
        for (int i = 0; i < texts.length; i++) {
            records.add(new TranscriptRecord(i + 1, ChatRef.group("http", "room-" + i), "user \"" + i + "\"",
                    TIMES[i], "id-" + i, Message.text(texts[i]),
                    i % 2 == 0));
        }
        EmbeddedChannel channel = new EmbeddedChannel(new ChannelInboundHandlerAdapter());
        ChannelHandlerContext ctx = channel.pipeline().firstContext();
        try {
            for (int n = 0; n <= records.size(); n++) {
                List<TranscriptRecord> some = records.subList(0, n);
                ByteBuf whole = Responses.messages(ctx, some);
                ByteBuf copied = Responses.messagesWritten(ctx, some.stream().map(Responses::message).toList());
                try {
                    assertThat(ByteBufUtil.getBytes(copied)).as("%d messages", n).isEqualTo(ByteBufUtil.getBytes(whole));
                } finally {
                    whole.release();
                    copied.release();
                }
            }
        } finally {
            channel.finishAndReleaseAll();
        }
    }
}
