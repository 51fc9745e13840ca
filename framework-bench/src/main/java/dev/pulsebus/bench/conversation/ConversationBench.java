package dev.pulsebus.bench.conversation;

import dev.pulsebus.bench.router.AsksFixture;
import dev.pulsebus.event.Ask;
import dev.pulsebus.event.Message;
import dev.pulsebus.event.MessageEvent;
import dev.pulsebus.pipeline.InboundResult;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The conversation suite: an ask made and answered by the chat's next message through the pipeline's
 * inbound path (deduplication, the pending-ask probe, completion), while 4096 other chats have an ask
 * pending. Each operation makes its answer as an adapter would (a fresh event id).
 */
@State(Scope.Benchmark)
public class ConversationBench {

    private static final Ask QUESTION = Ask.of("").timeout(Duration.ofMinutes(5));
    private static final Message ANSWER = Message.text("Ann");

    private AsksFixture fixture;
    private MessageEvent asker;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        fixture = new AsksFixture(4096);
        asker = fixture.adapter.groupMessage("dialog", "ann", Message.text("/register"));
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        fixture.close();
    }

    @Benchmark
    public MessageEvent answer__pulsebus() {
        CompletableFuture<MessageEvent> asked = fixture.pipeline.ask(asker, QUESTION);
        InboundResult r = fixture.adapter.inject(fixture.adapter.groupMessage("dialog", "ann", ANSWER));
        if (r != InboundResult.ANSWERED) {
            throw new IllegalStateException("the answer was " + r);
        }
        return asked.join();
    }
}
