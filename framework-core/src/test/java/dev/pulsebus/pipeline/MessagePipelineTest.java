package dev.pulsebus.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pulsebus.bus.EventBus;
import dev.pulsebus.command.Command;
import dev.pulsebus.command.CommandRouter;
import dev.pulsebus.command.Permissions;
import dev.pulsebus.event.ChatRef;
import dev.pulsebus.event.GroupMessage;
import dev.pulsebus.event.Message;
import dev.pulsebus.event.MessageEvent;
import dev.pulsebus.event.NoticeEvent;
import dev.pulsebus.event.Segment;
import dev.pulsebus.transcript.InMemoryTranscriptStore;
import dev.pulsebus.transcript.TranscriptRecord;
import dev.pulsebus.transcript.TranscriptWriter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class MessagePipelineTest {

    private static final String G = "group-1";
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final EventBus bus = EventBus.builder().build();
    private final CommandRouter commands = CommandRouter.builder().build();
    private final InMemoryAdapter adapter = new InMemoryAdapter("test", "bot");
    private final List<String> log = new CopyOnWriteArrayList<>();
    private MessagePipeline pipeline;

    @AfterEach
    void close() throws Exception {
        if (pipeline != null) {
            pipeline.close();
        }
        bus.close();
    }

    private MessagePipeline start(MessagePipeline.Builder b) throws Exception {
        pipeline = b.adapter(adapter).meterRegistry(registry).build().start();
        return pipeline;
    }

    private GroupMessage text(String text) {
        return adapter.groupMessage(G, "ann", Message.text(text));
    }

    @Test
    void commandHitIsAnsweredThroughTheAdapterAndNotPublished() throws Exception {
        commands.register(Command.named("echo").handler(c -> c.reply("echo: " + c.rest())));
        bus.subscribe(Object.class, e -> log.add("bus saw " + e.getClass().getSimpleName()));
        start(MessagePipeline.builder(bus).commands(commands));

        assertThat(adapter.inject(text("/echo hello world"))).isEqualTo(InboundResult.COMMAND);

        assertThat(adapter.sent()).singleElement().satisfies(out -> {
            assertThat(out.message()).isEqualTo(Message.text("echo: hello world"));
            assertThat(out.chat()).isEqualTo(ChatRef.group("test", G));
            assertThat(out.bot()).isEqualTo(adapter.bot());
            assertThat(out.replyTo()).isNotNull();
        });
        assertThat(log).isEmpty();
    }

    @Test
    void aUserPermissionAdmitsTheUserOfItsPlatformOnlyThoughIdsCollide() throws Exception {
        InMemoryAdapter onebot = new InMemoryAdapter("onebot11", "bot");
        InMemoryAdapter telegram = new InMemoryAdapter("telegram", "bot");
        InMemoryAdapter http = new InMemoryAdapter("http", "bot");
        commands.register(Command.named("op").permission(Permissions.users(java.util.Set.of("onebot11:10001")))
                .handler(c -> c.reply("done")));
        pipeline = MessagePipeline.builder(bus).commands(commands).adapter(onebot).adapter(telegram).adapter(http)
                .build().start();

        for (InMemoryAdapter a : List.of(onebot, telegram, http)) {
            assertThat(a.inject(a.groupMessage(G, "10001", Message.text("/op")))).isEqualTo(InboundResult.COMMAND);
        }
        assertThat(onebot.sent()).extracting(o -> o.message().plainText()).containsExactly("done");
        assertThat(telegram.sent()).extracting(o -> o.message().plainText())
                .containsExactly("You are not allowed to use /op.");
        assertThat(http.sent()).extracting(o -> o.message().plainText())
                .containsExactly("You are not allowed to use /op.");
    }

    @Test
    void aCommandsReplyCompletesWithThePlatformsMessageId() throws Exception {
        List<String> ids = new CopyOnWriteArrayList<>();
        commands.register(Command.named("echo").handler(c -> c.reply(c.rest()).thenAccept(ids::add)));
        start(MessagePipeline.builder(bus).commands(commands));

        adapter.inject(text("/echo hi"));

        assertThat(ids).singleElement().asString().startsWith("sent-");
    }

    @Test
    void handlesCloseAsTheirOwnVerbDoes() throws Exception {
        start(MessagePipeline.builder(bus).commands(commands));
        try (CommandRouter.Registration echo = commands.register(Command.named("echo").handler(c -> c.reply(c.rest())));
             MessagePipeline.Registration middleware = pipeline.addMiddleware(0, e -> {
                 log.add("middleware");
                 return e;
             })) {
            assertThat(adapter.inject(text("/echo hi"))).isEqualTo(InboundResult.COMMAND);
        }
        assertThat(adapter.inject(text("/echo hi"))).isNotEqualTo(InboundResult.COMMAND);
        assertThat(log).containsExactly("middleware");
    }

    @Test
    void plainMessagesAndUnknownCommandsGoToTheBusWhereHandlersCanReply() throws Exception {
        bus.subscribe(GroupMessage.class, m -> m.reply("you said " + m.message().plainText()));
        start(MessagePipeline.builder(bus).commands(commands));

        assertThat(adapter.inject(text("hello"))).isEqualTo(InboundResult.PUBLISHED);
        assertThat(adapter.inject(text("/nosuch"))).isEqualTo(InboundResult.PUBLISHED);

        assertThat(adapter.sent()).extracting(o -> o.message().plainText())
                .containsExactly("you said hello", "you said /nosuch");
    }

    @Test
    void anAnsweredUnknownCommandGetsOneAnswerAndIsNotPublished() throws Exception {
        CommandRouter answering = CommandRouter.builder().replyToUnknown(true).build();
        answering.register(Command.named("shout").pattern("/shout (.+)").handler(c -> c.reply("SHOUT")));
        bus.subscribe(GroupMessage.class, m -> log.add("bus saw " + m.message().plainText()));
        start(MessagePipeline.builder(bus).commands(answering));

        assertThat(adapter.inject(text("/nosuch"))).isEqualTo(InboundResult.COMMAND);
        assertThat(adapter.inject(text("/shout hey"))).isEqualTo(InboundResult.COMMAND);

        assertThat(adapter.sent()).extracting(o -> o.message().plainText())
                .containsExactly("Unknown command /nosuch. Try /help.", "SHOUT");
        assertThat(log).isEmpty();
    }

    @Test
    void mentionOfTheBotIsNotPartOfTheCommand() throws Exception {
        CommandRouter mentionOnly = CommandRouter.builder().requireMention(true).build();
        mentionOnly.register(Command.named("ping").handler(c -> c.reply("pong")));
        start(MessagePipeline.builder(bus).commands(mentionOnly));

        assertThat(adapter.inject(text("/ping"))).isEqualTo(InboundResult.PUBLISHED);
        assertThat(adapter.inject(adapter.groupMessage(G, "ann",
                Message.of(new Segment.Mention("bot"), new Segment.Text(" /ping"))))).isEqualTo(InboundResult.COMMAND);
        assertThat(adapter.sent()).extracting(o -> o.message().plainText()).containsExactly("pong");
    }

    @Test
    void nonMessageEventsGoStraightToTheBus() throws Exception {
        bus.subscribe(NoticeEvent.class, n -> log.add(n.detailType() + " " + n.fields().get("user_id")));
        start(MessagePipeline.builder(bus).commands(commands));

        adapter.inject(new NoticeEvent("n-1", Instant.now(), adapter.bot(), "group_member_increase", "join",
                Map.of("group_id", G, "user_id", "newbie")));

        assertThat(log).containsExactly("group_member_increase newbie");
    }

    @Test
    void retransmittedEventsAreDroppedAndCounted() throws Exception {
        bus.subscribe(GroupMessage.class, m -> log.add(m.id()));
        start(MessagePipeline.builder(bus).dedupeCapacity(2));
        GroupMessage a = text("a");
        GroupMessage b = text("b");
        GroupMessage c = text("c");

        assertThat(adapter.inject(a)).isEqualTo(InboundResult.PUBLISHED);
        assertThat(adapter.inject(a)).isEqualTo(InboundResult.DUPLICATE);
        adapter.inject(b);
        adapter.inject(c);                                        // a is forgotten (capacity 2)
        assertThat(adapter.inject(a)).isEqualTo(InboundResult.PUBLISHED);

        assertThat(log).containsExactly(a.id(), b.id(), c.id(), a.id());
        assertThat(registry.get("pulsebus.messages.duplicates").functionCounter().count()).isEqualTo(1);
        assertThat(registry.get("pulsebus.messages.dedupe.evictions").functionCounter().count()).isEqualTo(2);
    }

    @Test
    void middlewareRunsInPriorityOrderAndMayRewriteOrDrop() throws Exception {
        bus.subscribe(GroupMessage.class, m -> log.add("bus: " + m.message().plainText()));
        start(MessagePipeline.builder(bus)
                .middleware(e -> {
                    log.add("second (0, added first)");
                    return e;
                })
                .middleware(10, e -> {
                    log.add("first (10)");
                    return e instanceof GroupMessage g && g.message().plainText().contains("spam") ? null : e;
                })
                .middleware(e -> {
                    log.add("third (0, added second)");
                    GroupMessage g = (GroupMessage) e;
                    return new GroupMessage(g.id(), g.time(), g.self(), g.subType(), g.messageId(),
                            Message.text(g.message().plainText().toUpperCase()), g.userId(), g.groupId(), null);
                })
                .middleware(Integer.MIN_VALUE, e -> {
                    log.add("last (MIN_VALUE)");
                    return e;
                })
                .middleware(-1, e -> {
                    throw new IllegalStateException("broken middleware");
                }));

        assertThat(adapter.inject(text("buy spam"))).isEqualTo(InboundResult.DROPPED);
        assertThat(adapter.inject(text("hello"))).isEqualTo(InboundResult.PUBLISHED);

        assertThat(log).containsExactly("first (10)",
                "first (10)", "second (0, added first)", "third (0, added second)", "last (MIN_VALUE)", "bus: HELLO");
        assertThat(registry.get("pulsebus.messages.dropped").functionCounter().count()).isEqualTo(1);
        assertThat(registry.get("pulsebus.pipeline.middleware.errors").functionCounter().count()).isEqualTo(1);
    }

    @Test
    void rewrittenEventsCanStillReply() throws Exception {
        bus.subscribe(GroupMessage.class, m -> m.reply("ok"));
        start(MessagePipeline.builder(bus).middleware(e -> {
            GroupMessage g = (GroupMessage) e;
            return new GroupMessage(g.id(), g.time(), g.self(), g.subType(), g.messageId(), g.message(), g.userId(),
                    g.groupId(), null); // a middleware that forgot the reply channel
        }));
        adapter.inject(text("hi"));
        assertThat(adapter.sent()).hasSize(1);
    }

    @Test
    void transcriptRecordsInboundAndSentMessagesUnlessTheChatIsExcluded() throws Exception {
        commands.register(Command.named("echo").handler(c -> c.reply(c.rest())));
        TranscriptWriter writer = TranscriptWriter.builder(new InMemoryTranscriptStore())
                .flushInterval(Duration.ofMillis(5)).build();
        start(MessagePipeline.builder(bus).commands(commands).transcripts(writer)
                .recordWhen(chat -> !chat.id().equals("secret")));
        ChatRef room = ChatRef.group("test", G);

        adapter.inject(text("/echo hi"));
        adapter.inject(adapter.groupMessage("secret", "ann", Message.text("/echo hush")));

        List<TranscriptRecord> history = pipeline.history(room, 10, Long.MAX_VALUE);
        assertThat(history).extracting(TranscriptRecord::text).containsExactly("/echo hi", "hi");
        assertThat(history).extracting(TranscriptRecord::outbound).containsExactly(false, true);
        assertThat(history.get(1).userId()).isEqualTo("bot");
        assertThat(history.get(1).messageId()).startsWith("sent-");
        assertThat(pipeline.history(ChatRef.group("test", "secret"), 10, Long.MAX_VALUE)).isEmpty();
        assertThat(adapter.sent()).hasSize(2);
    }

    @Test
    void aFailingSendIsReportedToTheCallerAndCounted() throws Exception {
        adapter.failSends(m -> new java.io.IOException("platform said 503"));
        List<CompletionStage<String>> replies = new CopyOnWriteArrayList<>();
        bus.subscribe(GroupMessage.class, m -> replies.add(m.reply("hello?")));
        commands.register(Command.named("echo").handler(c -> c.reply("lost?")));
        start(MessagePipeline.builder(bus).commands(commands));

        adapter.inject(text("hi"));
        adapter.inject(text("/echo x"));

        assertThatThrownBy(() -> replies.get(0).toCompletableFuture().get(5, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).hasMessageContaining("platform said 503");
        assertThat(registry.get("pulsebus.messages.sent").tag("result", "failed").functionCounter().count())
                .isEqualTo(2);
        assertThat(registry.get("pulsebus.messages.sent").tag("result", "ok").functionCounter().count()).isZero();
    }

    @Test
    void sendingToAnyChatOnAnyBotWithTheBuilder() throws Exception {
        InMemoryAdapter other = new InMemoryAdapter("other", "bot2");
        pipeline = MessagePipeline.builder(bus).adapter(adapter).adapter(other).build().start();

        String id = pipeline.message(other.bot()).to(ChatRef.privateChat("other", "bob")).text("psst").send()
                .toCompletableFuture().get(5, TimeUnit.SECONDS);
        CompletionStage<String> nowhere = pipeline.message(new dev.pulsebus.event.Self("irc", "b"))
                .to(ChatRef.group("irc", "#x")).text("hi").send();

        assertThat(id).startsWith("sent-");
        assertThat(other.sent()).singleElement().extracting(o -> o.chat().id()).isEqualTo("bob");
        assertThat(adapter.sent()).isEmpty();
        assertThatThrownBy(() -> nowhere.toCompletableFuture().get(5, TimeUnit.SECONDS))
                .hasMessageContaining("no adapter for platform 'irc'");
        assertThatThrownBy(() -> pipeline.message(adapter.bot()).to(ChatRef.group("other", "x")).text("x").send())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("is on test");
    }

    @Test
    void anEventFromOutsideAPipelineCannotReply() {
        MessageEvent loose = text("hi");
        assertThatThrownBy(() -> loose.reply("x").toCompletableFuture().get())
                .hasMessageContaining("did not come through a pipeline");
    }

    @Test
    void aReplyWatchTellsTheSendsOfItsThreadThatTheyAreWaitedFor() {
        boolean[] inside = new boolean[2];
        assertThat(ReplyWatch.watching()).isFalse();
        ReplyWatch.run(() -> {
            inside[0] = ReplyWatch.watching();
            Thread other = Thread.ofVirtual().start(() -> inside[1] = ReplyWatch.watching());
            try {
                other.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertThat(inside[0]).as("on the watched thread").isTrue();
        assertThat(inside[1]).as("another thread's sends are not waited for").isFalse();
        assertThat(ReplyWatch.watching()).as("after the watch").isFalse();
    }

    @Test
    void aReplyWatchCompletesOnceTheRepliesSentOnItsThreadHaveLeft() throws Exception {
        java.util.concurrent.CompletableFuture<String> platform = new java.util.concurrent.CompletableFuture<>();
        record Slow(java.util.concurrent.CompletableFuture<String> answer, Inbound[] in) implements Adapter {
            @Override
            public String platform() {
                return "test";
            }

            @Override
            public void start(Inbound inbound) {
                in[0] = inbound;
            }

            @Override
            public CompletionStage<String> send(OutboundMessage message) {
                return answer;
            }
        }
        Inbound[] in = new Inbound[1];
        commands.register(Command.named("echo").handler(c -> c.reply(c.rest())));
        pipeline = MessagePipeline.builder(bus).commands(commands).adapter(new Slow(platform, in)).build().start();
        java.util.concurrent.CompletableFuture<Void> replies =
                ReplyWatch.run(() -> in[0].accept(adapter.groupMessage(G, "ann", Message.text("/echo hi"))));
        assertThat(replies).as("the reply has not left yet").isNotDone();
        platform.complete("m1");
        assertThat(replies).isCompleted();
        assertThat(ReplyWatch.run(() -> in[0].accept(adapter.groupMessage(G, "ann", Message.text("no command")))))
                .as("nothing sent: done at once").isCompleted();
        OutboundMessage nowhere = new OutboundMessage(new dev.pulsebus.event.Self("nowhere", "b"),
                ChatRef.group("nowhere", G), Message.text("x"), null);
        assertThat(ReplyWatch.run(() -> pipeline.send(nowhere)))
                .as("a failed reply is the sender's to report: the watch still completes").isCompleted();
    }

    @Test
    void oneAdapterPerPlatform() {
        assertThatThrownBy(() -> MessagePipeline.builder(bus).adapter(adapter).adapter(new InMemoryAdapter("test", "b")))
                .hasMessageContaining("already has an adapter");
    }

    @Test
    void aFailedStartStopsTheAdaptersThatHadStarted() {
        List<String> events = new CopyOnWriteArrayList<>();
        record Recording(String platform, boolean fails, List<String> events) implements Adapter {
            @Override
            public void start(Inbound inbound) {
                if (fails) {
                    throw new IllegalStateException(platform + " cannot connect");
                }
                events.add("start " + platform);
            }

            @Override
            public CompletionStage<String> send(OutboundMessage message) {
                return java.util.concurrent.CompletableFuture.completedFuture("1");
            }

            @Override
            public void stop() {
                events.add("stop " + platform);
            }
        }
        MessagePipeline.Builder b = MessagePipeline.builder(bus);
        for (String p : List.of("a", "b", "c", "d")) {
            b.adapter(new Recording(p, false, events));
        }
        MessagePipeline failing = b.adapter(new Recording("broken", true, events)).build();

        assertThatThrownBy(failing::start).hasMessage("broken cannot connect");

        List<String> started = events.stream().filter(e -> e.startsWith("start ")).map(e -> e.substring(6)).toList();
        List<String> stopped = events.stream().filter(e -> e.startsWith("stop ")).map(e -> e.substring(5)).toList();
        assertThat(started).as("started in the order added").containsExactly("a", "b", "c", "d");
        assertThat(stopped).as("every adapter that started, or began to, stopped, newest first")
                .containsExactly("broken", "d", "c", "b", "a");
        failing.stopAdapters(); // nothing is stopped twice
        assertThat(events.stream().filter(e -> e.startsWith("stop ")).count()).isEqualTo(stopped.size());
    }

    @Test
    void closeStopsTheAdaptersAndFlushesTranscripts() throws Exception {
        InMemoryTranscriptStore store = new InMemoryTranscriptStore();
        TranscriptWriter writer = TranscriptWriter.builder(store).flushInterval(Duration.ofHours(1)).build();
        start(MessagePipeline.builder(bus).transcripts(writer));
        adapter.inject(text("last words"));

        pipeline.close();
        pipeline = null;

        assertThat(store.last(ChatRef.group("test", G), 10, Long.MAX_VALUE)).extracting(TranscriptRecord::text)
                .containsExactly("last words");
        assertThatThrownBy(() -> adapter.inject(text("after"))).hasMessageContaining("not started");
    }
}
