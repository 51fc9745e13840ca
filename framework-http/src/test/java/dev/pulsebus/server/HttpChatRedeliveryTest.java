package dev.pulsebus.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulsebus.cluster.Redelivery;
import dev.pulsebus.event.Message;
import dev.pulsebus.event.MessageEvent;
import dev.pulsebus.event.Self;
import dev.pulsebus.pipeline.InboundResult;
import dev.pulsebus.pipeline.OutboundMessage;
import dev.pulsebus.transcript.InMemoryTranscriptStore;
import dev.pulsebus.transcript.TranscriptRecord;
import dev.pulsebus.transcript.TranscriptWriter;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A cluster's holder that died after it stored a said message and some of its replies, but before it marked the
 * message done, has the message redelivered to another instance: the rerun stores the say no second time and
 * makes only the replies not stored.
 */
class HttpChatRedeliveryTest {

    private static final Self BOT = new Self(HttpChat.PLATFORM, HttpChat.BOT_USER);

    /** What the broker does around a redelivered event's handling (package-private in the cluster module). */
    private static void redelivering(boolean on) throws Exception {
        Method set = Redelivery.class.getDeclaredMethod("set", boolean.class);
        set.setAccessible(true);
        set.invoke(null, on);
    }

    @Test
    void aRedeliveredMessageMakesOnlyTheRepliesThatWereNotStored() throws Exception {
        ExecutorService work = Executors.newVirtualThreadPerTaskExecutor();
        try (TranscriptWriter transcripts = TranscriptWriter.builder(new InMemoryTranscriptStore()).build()) {
            HttpChat chat = new HttpChat(transcripts, new RoomHistory(transcripts), new LongPollRooms(work),
                    Clock.systemUTC(), "b", 100);
            int[] replies = {1};
            chat.start(event -> { // a handler that answers with `replies` messages, each committed before the next
                for (int n = 1; n <= replies[0]; n++) {
                    MessageEvent m = (MessageEvent) event;
                    chat.send(new OutboundMessage(BOT, m.chat(), Message.text("answer " + n), m.messageId()))
                            .toCompletableFuture().join();
                }
                return InboundResult.COMMAND;
            });
            byte[] said = new TranscriptRecord(0, HttpChat.room("lobby"), "ann", Instant.now(), "a-7",
                    Message.text("/two"), false).toJson().getBytes(StandardCharsets.UTF_8);

            chat.handle(said); // the first holder: the say and its first answer committed, then it died
            assertThat(bot(transcripts)).containsExactly("answer 1");
            assertThat(says(transcripts)).containsExactly("/two");

            replies[0] = 2;
            redelivering(true);
            try {
                chat.handle(said); // the next holder: answer 1 was stored, answer 2 was not
                assertThat(bot(transcripts)).containsExactly("answer 1", "answer 2");
                chat.handle(said); // and once more: both stored
                assertThat(bot(transcripts)).containsExactly("answer 1", "answer 2");
                assertThat(says(transcripts)).as("the say stored once").containsExactly("/two");
            } finally {
                redelivering(false);
            }
            chat.handle(said); // not a redelivery (nothing marks it so): its answers are all made
            assertThat(bot(transcripts)).hasSize(4);
            chat.stop();
        } finally {
            work.shutdownNow();
            work.awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    private static List<String> says(TranscriptWriter transcripts) throws Exception {
        transcripts.flush(Duration.ofSeconds(5));
        return transcripts.history(HttpChat.room("lobby"), 100, Long.MAX_VALUE).stream()
                .filter(r -> !r.outbound()).map(r -> r.message().plainText()).toList();
    }

    private static List<String> bot(TranscriptWriter transcripts) throws Exception {
        transcripts.flush(Duration.ofSeconds(5));
        return transcripts.history(HttpChat.room("lobby"), 100, Long.MAX_VALUE).stream()
                .filter(TranscriptRecord::outbound).map(r -> r.message().plainText()).toList();
    }
}
