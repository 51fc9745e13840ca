package dev.pulsebus.bench.conversation;

import dev.pulsebus.bench.harness.JmhSuite;
import dev.pulsebus.bench.harness.Suite;
import java.util.List;

/** The {@code conversation} suite: asks answered by the chat's next message. */
public final class ConversationSuite {

    private ConversationSuite() {
    }

    public static Suite create() {
        return new JmhSuite("conversation", ConversationBench.class, List.of(), List.of(
                new JmhSuite.RowSpec("answer", false,
                        "pipeline.ask, then the chat's next message through adapter -> dedupe -> pending-ask probe "
                                + "-> completion; 4096 other chats asking",
                        JmhSuite.Target.atLeast(0))));
    }
}
