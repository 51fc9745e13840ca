package dev.pulsebus.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulsebus.cluster.Redelivery;
import dev.pulsebus.event.Message;
import dev.pulsebus.pipeline.OutboundMessage;
import dev.pulsebus.transcript.InMemoryTranscriptStore;
import dev.pulsebus.transcript.TranscriptRecord;
import dev.pulsebus.transcript.TranscriptWriter;
import java.lang.reflect.Method;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A cluster's holder that died after its reply to a message was committed, but before it marked the message done,
 * has the message redelivered to another instance: the rerun finds the reply and does not answer twice.
 */
class HttpChatRedeliveryTest {

    /** What the broker does around a redelivered event's handling (package-private in the cluster module). */
    private static void redelivering(boolean on) throws Exception {
        Method set = Redelivery.class.getDeclaredMethod("set", boolean.class);
        set.setAccessible(true);
        set.invoke(null, on);
    }

    @Test
    void aRedeliveredMessageIsNotAnsweredAgainWhenItsReplyWasStored() throws Exception {
        ExecutorService work = Executors.newVirtualThreadPerTaskExecutor();
        try (TranscriptWriter transcripts = TranscriptWriter.builder(new InMemoryTranscriptStore()).build()) {
            HttpChat chat = new HttpChat(transcripts, new RoomHistory(transcripts), new LongPollRooms(work),
                    Clock.systemUTC(), "a", 100);
            OutboundMessage reply = new OutboundMessage(new dev.pulsebus.event.Self(HttpChat.PLATFORM, HttpChat.BOT_USER), HttpChat.room("lobby"), Message.text("42"),
                    "a-7");
            String first = chat.send(reply).toCompletableFuture().get(5, TimeUnit.SECONDS);
            assertThat(first).startsWith("a-7" + HttpChat.REPLY_MARK);

            redelivering(true);
            String again;
            try {
                again = chat.send(reply).toCompletableFuture().get(5, TimeUnit.SECONDS);
            } finally {
                redelivering(false);
            }
            assertThat(again).as("the stored reply's id, nothing stored").isEqualTo(first);
            assertThat(bot(transcripts)).hasSize(1);

            String other = chat.send(new OutboundMessage(new dev.pulsebus.event.Self(HttpChat.PLATFORM, HttpChat.BOT_USER), HttpChat.room("lobby"), Message.text("43"),
                    "a-8")).toCompletableFuture().get(5, TimeUnit.SECONDS);
            chat.send(reply).toCompletableFuture().get(5, TimeUnit.SECONDS); // not a redelivery: a second answer
            assertThat(other).isNotEqualTo(first);
            assertThat(bot(transcripts)).as("replies outside a redelivery are all stored").hasSize(3);
        } finally {
            work.shutdownNow();
        }
    }

    private static List<TranscriptRecord> bot(TranscriptWriter transcripts) throws Exception {
        transcripts.flush(Duration.ofSeconds(5));
        return transcripts.history(HttpChat.room("lobby"), 100, Long.MAX_VALUE).stream()
                .filter(TranscriptRecord::outbound).toList();
    }
}
