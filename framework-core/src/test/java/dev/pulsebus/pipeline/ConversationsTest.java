package dev.pulsebus.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pulsebus.bus.EventBus;
import dev.pulsebus.command.Command;
import dev.pulsebus.command.CommandRouter;
import dev.pulsebus.event.Ask;
import dev.pulsebus.event.AskException;
import dev.pulsebus.event.GroupMessage;
import dev.pulsebus.event.Message;
import dev.pulsebus.event.MessageEvent;
import dev.pulsebus.testing.Await;
import dev.pulsebus.testing.FakeClock;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Asks and their answers through a real pipeline, router and bus, on a fake clock. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConversationsTest {

    private static final Duration WAIT = Duration.ofSeconds(10);
    private final FakeClock clock = new FakeClock();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final EventBus bus = EventBus.builder().build();
    private final CommandRouter commands = CommandRouter.builder().clock(clock).build();
    private final InMemoryAdapter adapter = new InMemoryAdapter("test", "bot");
    private final List<String> published = new CopyOnWriteArrayList<>();
    private MessagePipeline pipeline;

    @AfterEach
    void close() throws Exception {
        if (pipeline != null) {
            pipeline.close();
        }
        bus.close();
    }

    private MessagePipeline start(MessagePipeline.Builder b) throws Exception {
        bus.subscribe(GroupMessage.class, m -> published.add(m.message().plainText()));
        pipeline = b.adapter(adapter).commands(commands).clock(clock).askRecheck(Duration.ofMillis(5))
                .meterRegistry(registry).build().start();
        return pipeline;
    }

    private MessagePipeline start() throws Exception {
        return start(MessagePipeline.builder(bus));
    }

    private GroupMessage say(String group, String user, String text) {
        return adapter.groupMessage(group, user, Message.text(text));
    }

    /** Asks in group {@code g} as {@code user} would be asked by a handler that got their message. */
    private CompletableFuture<MessageEvent> ask(String g, String user, Ask ask) {
        return pipeline.ask(say(g, user, "hi"), ask);
    }

    private List<String> sentTexts() {
        return adapter.sent().stream().map(o -> o.message().plainText()).toList();
    }

    private double ended(String result) {
        return registry.get("pulsebus.asks.ended").tag("result", result).functionCounter().count();
    }

    private static AskException failure(CompletionStage<?> stage) {
        try {
            stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return (AskException) e.getCause();
        } catch (Exception e) {
            throw new AssertionError("the ask did not fail: " + e);
        }
        throw new AssertionError("the ask was answered");
    }

    @Test
    void theSameUsersNextMessageInTheChatAnswersAndIsConsumed() throws Exception {
        start();
        CompletableFuture<MessageEvent> answer = ask("g1", "ann", Ask.of("What name?"));

        assertThat(sentTexts()).containsExactly("What name?");
        assertThat(adapter.inject(say("g1", "ann", "Ann Lee"))).isEqualTo(InboundResult.ANSWERED);

        assertThat(answer.get(10, TimeUnit.SECONDS).message().plainText()).isEqualTo("Ann Lee");
        assertThat(published).isEmpty();
        assertThat(pipeline.pendingAsks()).isZero();
        assertThat(ended("answered")).isEqualTo(1);
    }

    @Test
    void anotherUsersMessageDoesNotAnswerAndGoesItsUsualWay() throws Exception {
        start();
        CompletableFuture<MessageEvent> answer = ask("g1", "ann", Ask.of("What name?"));

        assertThat(adapter.inject(say("g1", "bob", "I am Bob"))).isEqualTo(InboundResult.PUBLISHED);
        assertThat(adapter.inject(say("g2", "ann", "wrong chat"))).isEqualTo(InboundResult.PUBLISHED);

        assertThat(answer).isNotDone();
        assertThat(published).containsExactly("I am Bob", "wrong chat");
        adapter.inject(say("g1", "ann", "Ann"));
        assertThat(answer.get(10, TimeUnit.SECONDS).userId()).isEqualTo("ann");
    }

    @Test
    void anyoneInChatWidensAndAPredicateOrNumberNarrows() throws Exception {
        start();
        CompletableFuture<MessageEvent> anyone = ask("g1", "ann", Ask.of("Who?").anyoneInChat());
        CompletableFuture<MessageEvent> number = ask("g2", "ann", Ask.of("How many?").number());
        CompletableFuture<MessageEvent> yes = ask("g3", "ann", Ask.of("Sure?")
                .when(m -> m.message().plainText().startsWith("y")));

        adapter.inject(say("g1", "bob", "me"));
        assertThat(adapter.inject(say("g2", "ann", "many"))).isEqualTo(InboundResult.PUBLISHED);
        adapter.inject(say("g2", "ann", "-3.5"));
        assertThat(adapter.inject(say("g3", "ann", "no"))).isEqualTo(InboundResult.PUBLISHED);
        adapter.inject(say("g3", "ann", "yes"));

        assertThat(anyone.get(10, TimeUnit.SECONDS).userId()).isEqualTo("bob");
        assertThat(number.get(10, TimeUnit.SECONDS).message().plainText()).isEqualTo("-3.5");
        assertThat(yes.get(10, TimeUnit.SECONDS).message().plainText()).isEqualTo("yes");
    }

    @Test
    void anObservingAskSeesTheAnswerWhichAlsoRunsAsACommand() throws Exception {
        List<String> ran = new CopyOnWriteArrayList<>();
        commands.register(Command.named("echo").handler(c -> ran.add(c.rest())));
        start();
        CompletableFuture<MessageEvent> seen = ask("g1", "ann", Ask.of("").observe());

        assertThat(adapter.inject(say("g1", "ann", "/echo hi"))).isEqualTo(InboundResult.COMMAND);

        assertThat(seen.get(10, TimeUnit.SECONDS).message().plainText()).isEqualTo("/echo hi");
        assertThat(ran).containsExactly("hi");
    }

    @Test
    void theConsumedAnswerDoesNotRunAsACommand() throws Exception {
        List<String> ran = new CopyOnWriteArrayList<>();
        commands.register(Command.named("echo").handler(c -> ran.add(c.rest())));
        start();
        CompletableFuture<MessageEvent> answer = ask("g1", "ann", Ask.of("Say something"));

        assertThat(adapter.inject(say("g1", "ann", "/echo hi"))).isEqualTo(InboundResult.ANSWERED);

        assertThat(answer.get(10, TimeUnit.SECONDS).message().plainText()).isEqualTo("/echo hi");
        assertThat(ran).isEmpty();
        assertThat(adapter.inject(say("g1", "ann", "/echo again"))).isEqualTo(InboundResult.COMMAND);
        assertThat(ran).containsExactly("again");
    }

    @Test
    void anAskTimesOutWhenTheClockPassesItsTimeout() throws Exception {
        start(MessagePipeline.builder(bus).askTimeout(Duration.ofMinutes(5)));
        CompletableFuture<MessageEvent> byDefault = ask("g1", "ann", Ask.of("Name?"));
        CompletableFuture<MessageEvent> shorter = ask("g2", "ann", Ask.of("Quick?").timeout(Duration.ofSeconds(30)));

        clock.advance(Duration.ofSeconds(31));
        assertThat(failure(shorter).reason()).isEqualTo(AskException.Reason.TIMEOUT);
        assertThat(failure(shorter)).hasMessageContaining("no answer within PT30S");
        assertThat(byDefault).isNotDone();

        clock.advance(Duration.ofMinutes(5));
        assertThat(failure(byDefault).reason()).isEqualTo(AskException.Reason.TIMEOUT);
        assertThat(ended("timeout")).isEqualTo(2);
        assertThat(adapter.inject(say("g1", "ann", "too late"))).isEqualTo(InboundResult.PUBLISHED);
    }

    @Test
    void cancelEndsTheSendersAsksAndIsAnsweredInTheirLanguage() throws Exception {
        start(MessagePipeline.builder(bus).locale(Locale.CHINESE));
        CompletableFuture<MessageEvent> ann = ask("g1", "ann", Ask.of("Name?"));
        CompletableFuture<MessageEvent> bob = ask("g1", "bob", Ask.of("Name?"));

        assertThat(adapter.inject(say("g1", "ann", " /CANCEL "))).isEqualTo(InboundResult.ANSWERED);

        assertThat(failure(ann).reason()).isEqualTo(AskException.Reason.CANCELLED);
        assertThat(bob).isNotDone();
        assertThat(sentTexts()).last().isEqualTo("已取消。");
        assertThat(ended("cancelled")).isEqualTo(1);
        // With nothing pending for the sender, the word is an ordinary message.
        assertThat(adapter.inject(say("g2", "ann", "/cancel"))).isEqualTo(InboundResult.PUBLISHED);
    }

    @Test
    void theCancelWordIsConfigurable() throws Exception {
        start(MessagePipeline.builder(bus).cancelWords("stop", "取消"));
        CompletableFuture<MessageEvent> ann = ask("g1", "ann", Ask.of("Name?"));

        adapter.inject(say("g1", "ann", "取消"));

        assertThat(failure(ann).reason()).isEqualTo(AskException.Reason.CANCELLED);
        assertThat(sentTexts()).last().isEqualTo("Cancelled.");
    }

    @Test
    void twoDialogsInTwoChatsRunAtOnce() throws Exception {
        commands.register(Command.named("register").blocking().handler(call -> {
            String name = call.askText("Name?");
            int age = call.askInt("Age?");
            call.reply(name + " is " + age);
        }));
        start();

        adapter.inject(say("g1", "ann", "/register"));
        adapter.inject(say("g2", "bob", "/register"));
        assertThat(Await.until(WAIT, () -> pipeline.pendingAsks() == 2)).isTrue();
        adapter.inject(say("g2", "bob", "Bob"));
        adapter.inject(say("g1", "ann", "Ann"));
        assertThat(Await.until(WAIT, () -> pipeline.pendingAsks() == 2
                && sentTexts().stream().filter("Age?"::equals).count() == 2)).isTrue();
        adapter.inject(say("g1", "ann", "31"));
        adapter.inject(say("g2", "bob", "42"));

        assertThat(Await.until(WAIT, () -> sentTexts().containsAll(List.of("Ann is 31", "Bob is 42")))).isTrue();
        assertThat(adapter.sent()).filteredOn(o -> o.message().plainText().equals("Ann is 31"))
                .singleElement().satisfies(o -> assertThat(o.chat().id()).isEqualTo("g1"));
    }

    @Test
    void askIntRepromptsOnBadInputUpToItsAttempts() throws Exception {
        AtomicReference<Object> result = new AtomicReference<>();
        commands.register(Command.named("age").blocking().handler(call -> {
            try {
                result.set(call.askInt(Ask.of("Age?").attempts(2)));
            } catch (AskException e) {
                result.set(e.reason());
                throw e;
            }
        }));
        start();

        adapter.inject(say("g1", "ann", "/age"));
        assertThat(Await.until(WAIT, () -> pipeline.pendingAsks() == 1)).isTrue();
        adapter.inject(say("g1", "ann", "old"));
        assertThat(Await.until(WAIT, () -> sentTexts().contains("Expected a number, got 'old'. Age?"))).isTrue();
        adapter.inject(say("g1", "ann", "very"));

        assertThat(Await.until(WAIT, () -> result.get() != null)).isTrue();
        assertThat(result.get()).isEqualTo(AskException.Reason.INVALID);
        assertThat(Await.until(WAIT, () -> sentTexts().contains("No valid answer; /age stopped."))).isTrue();

        adapter.inject(say("g1", "ann", "/age"));
        assertThat(Await.until(WAIT, () -> pipeline.pendingAsks() == 1)).isTrue();
        adapter.inject(say("g1", "ann", "7"));
        assertThat(Await.until(WAIT, () -> Integer.valueOf(7).equals(result.get()))).isTrue();
    }

    @Test
    void waitingForAnAnswerIsNotTheCommandsTimeAndAsksAreTimedApart() throws Exception {
        CommandRouter timed = CommandRouter.builder().clock(clock).meterRegistry(registry)
                .slowCommand(Duration.ofMillis(500)).build();
        AtomicReference<String> name = new AtomicReference<>();
        timed.register("dialogs", Command.named("register").blocking().handler(call -> name.set(call.askText("Name?"))));
        pipeline = MessagePipeline.builder(bus).adapter(adapter).commands(timed).clock(clock)
                .askRecheck(Duration.ofMillis(5)).meterRegistry(registry).build().start();

        adapter.inject(say("g1", "ann", "/register"));
        assertThat(Await.until(WAIT, () -> pipeline.pendingAsks() == 1)).isTrue();
        Thread.sleep(1_500); // the user takes a while to answer: three times the slow threshold
        clock.advance(Duration.ofSeconds(42)); // and on the pipeline's clock, which times the ask
        adapter.inject(say("g1", "ann", "Ann"));

        assertThat(Await.until(WAIT, () -> "Ann".equals(name.get()))).isTrue();
        Timer command = registry.get("pulsebus.command.duration").tag("outcome", "ok").timer();
        assertThat(Await.until(WAIT, () -> command.count() == 1)).isTrue();
        assertThat(command.max(TimeUnit.MILLISECONDS)).as("the command's own time, not the wait").isLessThan(500);
        assertThat(registry.find("pulsebus.handler.slow").counters()).allSatisfy(c -> assertThat(c.count()).isZero());
        Timer ask = registry.get("pulsebus.asks.duration").tag("result", "answered").timer();
        assertThat(ask.count()).isEqualTo(1);
        assertThat(ask.totalTime(TimeUnit.SECONDS)).isEqualTo(42.0);
    }

    @Test
    void aBlockingDialogThatTimesOutIsToldSo() throws Exception {
        commands.register(Command.named("register").blocking().handler(call -> call.askText("Name?")));
        start();

        adapter.inject(say("g1", "ann", "/register"));
        assertThat(Await.until(WAIT, () -> pipeline.pendingAsks() == 1)).isTrue();
        clock.advance(Duration.ofMinutes(6));

        assertThat(Await.until(WAIT, () -> sentTexts().contains("No answer came in time; /register stopped."))).isTrue();
    }

    @Test
    void waitingOutsideABlockingCommandIsRefusedWithTheReason() throws Exception {
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        commands.register(Command.named("inline").handler(call -> {
            try {
                call.askText("Name?");
            } catch (IllegalStateException e) {
                thrown.set(e);
            }
        }));
        start();

        adapter.inject(say("g1", "ann", "/inline"));

        assertThat(thrown.get()).hasMessageContaining("Command.blocking()");
    }

    @Test
    void unregisteringACommandFailsItsPendingAsks() throws Exception {
        AtomicReference<CompletionStage<MessageEvent>> asked = new AtomicReference<>();
        CommandRouter.Registration r = commands.register(Command.named("q")
                .handler(call -> asked.set(call.ask("Name?"))));
        start();
        adapter.inject(say("g1", "ann", "/q"));

        r.unregister();

        assertThat(failure(asked.get()).reason()).isEqualTo(AskException.Reason.UNLOADED);
        assertThat(pipeline.pendingAsks()).isZero();
        assertThat(adapter.inject(say("g1", "ann", "hello"))).isEqualTo(InboundResult.PUBLISHED);
    }

    @Test
    void theOldestAskIsEvictedPerChatAndInAllAndCounted() throws Exception {
        start(MessagePipeline.builder(bus).maxAsksPerChat(2).maxAsks(3));
        CompletableFuture<MessageEvent> a1 = ask("g1", "a", Ask.of(""));
        CompletableFuture<MessageEvent> a2 = ask("g1", "b", Ask.of(""));
        CompletableFuture<MessageEvent> a3 = ask("g1", "c", Ask.of(""));   // g1 full: a1 goes
        CompletableFuture<MessageEvent> b1 = ask("g2", "a", Ask.of(""));
        CompletableFuture<MessageEvent> b2 = ask("g3", "a", Ask.of(""));   // 4 in all: a2 goes

        assertThat(failure(a1).reason()).isEqualTo(AskException.Reason.EVICTED);
        assertThat(failure(a2).reason()).isEqualTo(AskException.Reason.EVICTED);
        assertThat(List.of(a3, b1, b2)).noneMatch(CompletableFuture::isDone);
        assertThat(pipeline.pendingAsks()).isEqualTo(3);
        assertThat(ended("evicted")).isEqualTo(2);
        assertThat(registry.get("pulsebus.asks.pending").gauge().value()).isEqualTo(3);
    }

    @Test
    void askedChatsAreStillFoundAfterTheProbeBitsAreRebuilt() throws Exception {
        start(MessagePipeline.builder(bus).maxAsks(64));
        CompletableFuture<MessageEvent> kept = ask("keep", "ann", Ask.of(""));
        for (int i = 0; i < 1500; i++) { // past 1024 removals: the bits are rebuilt from the asks left
            ask("c" + i, "ann", Ask.of("")).cancel(false);
        }

        assertThat(adapter.inject(say("c7", "ann", "nobody asks here now"))).isEqualTo(InboundResult.PUBLISHED);
        assertThat(adapter.inject(say("keep", "ann", "still asked"))).isEqualTo(InboundResult.ANSWERED);
        assertThat(kept.get(10, TimeUnit.SECONDS).message().plainText()).isEqualTo("still asked");
    }

    @Test
    void cancellingTheFutureWithdrawsTheAsk() throws Exception {
        start();
        CompletableFuture<MessageEvent> answer = ask("g1", "ann", Ask.of("Name?"));

        answer.cancel(false);

        assertThat(pipeline.pendingAsks()).isZero();
        assertThat(adapter.inject(say("g1", "ann", "Ann"))).isEqualTo(InboundResult.PUBLISHED);
    }

    @Test
    void completingTheFutureFromOutsideWithdrawsTheAskToo() throws Exception {
        start();
        CompletableFuture<MessageEvent> answer = ask("g1", "ann", Ask.of("Name?"));

        answer.complete(say("g1", "ann", "made up"));

        assertThat(pipeline.pendingAsks()).isZero();
        assertThat(adapter.inject(say("g1", "ann", "Ann"))).isEqualTo(InboundResult.PUBLISHED);
    }

    @Test
    void closingThePipelineFailsPendingAsksAndRefusesNewOnes() throws Exception {
        start();
        CompletableFuture<MessageEvent> answer = ask("g1", "ann", Ask.of("Name?"));
        GroupMessage m = say("g1", "ann", "hi");

        pipeline.close();

        assertThat(failure(answer).reason()).isEqualTo(AskException.Reason.CLOSED);
        assertThat(failure(pipeline.ask(m, Ask.of("again?"))).reason()).isEqualTo(AskException.Reason.CLOSED);
    }

    @Test
    void anEventFromNoPipelineCannotAsk() {
        GroupMessage loose = say("g1", "ann", "hi");

        assertThatThrownBy(() -> loose.ask("Name?").toCompletableFuture().join())
                .hasCauseInstanceOf(AskException.class).hasMessageContaining("cannot ask");
    }
}
