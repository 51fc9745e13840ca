package dev.pulsebus.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulsebus.bus.EventBus;
import dev.pulsebus.command.Command;
import dev.pulsebus.command.CommandRouter;
import dev.pulsebus.event.GroupMessage;
import dev.pulsebus.event.Message;
import dev.pulsebus.module.ModuleHost;
import dev.pulsebus.testing.Await;
import dev.pulsebus.testing.HangingModule;
import dev.pulsebus.testing.LogCapture;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A handler that never returns on one chat of a lane: the lane's other chats go on, the stall is reported. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ChatLanesTest {

    private static final int LANES = 16;

    @RegisterExtension
    final LogCapture watchLog = new LogCapture(HandlerWatch.class);

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final EventBus bus = EventBus.create();
    private final CommandRouter router = CommandRouter.builder().build();
    private final InMemoryAdapter adapter = new InMemoryAdapter("test", "bot");
    private final HangingModule hanger = new HangingModule();
    private MessagePipeline pipeline;
    private ModuleHost host;
    private ChatLanes<GroupMessage> lanes;
    /** The ids of the events the lanes settled, in the order they did. */
    private final List<String> settled = new CopyOnWriteArrayList<>();
    private final List<String> offered = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() throws Exception {
        if (lanes != null) {
            lanes.stop(Duration.ofSeconds(5));
        }
        if (host != null) {
            host.close();
        }
        if (pipeline != null) {
            pipeline.close();
        }
        bus.close();
    }

    private void start(Duration stallAfter) throws Exception {
        router.register(Command.named("ping").handler(call -> call.reply("pong " + call.source().chatId())));
        pipeline = MessagePipeline.builder(bus).commands(router).adapter(adapter).meterRegistry(registry)
                .stallAfter(stallAfter).build().start();
        host = ModuleHost.builder(bus, router).pipeline(pipeline).build();
        host.load(hanger);
        lanes = new ChatLanes<>("test-lane", LANES, 64, GroupMessage::groupId, pipeline::accept,
                m -> settled.add(m.id()));
        lanes.start(pipeline);
    }

    private void say(String group, String text) {
        GroupMessage m = adapter.groupMessage(group, "ann", Message.text(text));
        offered.add(m.id());
        assertThat(lanes.offer(m)).isTrue();
    }

    private List<String> answers() {
        return adapter.sent().stream().map(o -> o.message().plainText()).toList();
    }

    private double stalledGauge() {
        return registry.get("pulsebus.handler.stalled").gauge().value();
    }

    /** Another group on the lane of {@code group}. */
    private static String sameLaneAs(String group) {
        for (int i = 0; ; i++) {
            String other = "g" + i;
            if (!other.equals(group) && Math.floorMod(other.hashCode(), LANES) == Math.floorMod(group.hashCode(), LANES)) {
                return other;
            }
        }
    }

    /**
     * Starts with a 300 ms stall, runs {@code /hang} on {@code stuck}, then says {@code /ping} on another chat of
     * its lane, on {@code stuck} (it waits behind {@code /hang}: its chat's order is kept; set aside once that
     * stalls) and on the other again; returns the other chat.
     */
    private String hangWithPingsAround(String stuck) throws Exception {
        start(Duration.ofMillis(300));
        String other = sameLaneAs(stuck);
        say(stuck, "/hang");
        assertThat(hanger.hanging.await(10, TimeUnit.SECONDS)).isTrue();
        say(other, "/ping");
        say(stuck, "/ping");
        say(other, "/ping");
        return other;
    }

    @Test
    void aStalledCommandIsReportedItsLanesOtherChatsGoOnAndAnUnloadInterruptsIt() throws Exception {
        String stuck = "stuck";
        String other = hangWithPingsAround(stuck);

        assertThat(Await.until(Duration.ofSeconds(10), () -> answers().size() >= 2))
                .as("the other chat of the lane is answered: " + answers()).isTrue();
        assertThat(answers()).containsExactly("pong " + other, "pong " + other);
        assertThat(pipeline.handlerWatch().stalled()).isEqualTo(1);
        assertThat(stalledGauge()).isEqualTo(1.0);
        assertThat(watchLog.lines()).singleElement().asString()
                .contains("Stalled: command 'hang' of module hanger", "on chat " + stuck, "bus.stall_ms = 300");

        host.unload("hanger");
        assertThat(hanger.interrupted.await(10, TimeUnit.SECONDS)).as("the unload interrupts /hang").isTrue();
        assertThat(Await.until(Duration.ofSeconds(10), () -> answers().size() == 3)).as(answers().toString()).isTrue();
        assertThat(answers()).last().isEqualTo("pong " + stuck);
        assertThat(Await.until(Duration.ofSeconds(10), () -> pipeline.handlerWatch().stalled() == 0)).isTrue();
        assertThat(stalledGauge()).isZero();

        say(stuck, "/ping");
        say(other, "/ping");
        assertThat(Await.until(Duration.ofSeconds(10), () -> answers().size() == 5)).as(answers().toString()).isTrue();
    }

    @Test
    void aModulesStalledMessageHandlerIsNamedAndInterruptedByItsUnload() throws Exception {
        start(Duration.ofMillis(300));
        say("stuck", "hang");
        assertThat(hanger.hanging.await(10, TimeUnit.SECONDS)).isTrue();
        say(sameLaneAs("stuck"), "/ping");
        assertThat(Await.until(Duration.ofSeconds(10), () -> answers().size() == 1)).isTrue();
        assertThat(watchLog.lines()).singleElement().asString()
                .contains("Stalled: a message handler of module hanger", "on chat stuck");

        host.unload("hanger");
        assertThat(hanger.interrupted.await(10, TimeUnit.SECONDS)).as("the unload interrupts the handler").isTrue();
        assertThat(Await.until(Duration.ofSeconds(10), () -> pipeline.handlerWatch().stalled() == 0)).isTrue();
    }

    @Test
    void stopEndsWorkersWaitingOnEmptyLanesAndThoseWithItemsFinishThemFirst() throws Exception {
        start(Duration.ofSeconds(30));
        say("g1", "/ping");
        assertThat(Await.until(Duration.ofSeconds(10), () -> answers().size() == 1)).isTrue(); // its lane empty again
        say("g2", "/ping");
        say("g2", "/ping"); // may still be queued when stop comes: handled before the worker ends

        assertThat(lanes.stop(Duration.ofSeconds(20))).isTrue();
        assertThat(answers()).containsExactly("pong g1", "pong g2", "pong g2");
        assertThat(lanes.offer(adapter.groupMessage("g3", "ann", Message.text("/ping")))).isFalse();
        lanes = null;
    }

    @Test
    void runsUnderTheThresholdAreNotReported() throws Exception {
        start(Duration.ofSeconds(5));
        String group = "g";
        for (int i = 0; i < 50; i++) {
            say(group, "/ping");
        }
        assertThat(Await.until(Duration.ofSeconds(10), () -> answers().size() == 50)).isTrue();
        assertThat(pipeline.handlerWatch().stalled()).isZero();
        assertThat(watchLog.lines()).isEmpty();
    }

    @Test
    void eachEventIsSettledOnceWhenHandledOrGivenUpOnBehindAStalledHandler() throws Exception {
        String stuck = "stuck";
        String other = hangWithPingsAround(stuck);

        assertThat(Await.until(Duration.ofSeconds(10), () -> settled.size() == 4))
                .as("the stalled run and the event set aside behind it are given up on: " + settled).isTrue();
        assertThat(settled).containsExactlyInAnyOrderElementsOf(offered);
        assertThat(settled).containsSubsequence(offered.get(1), offered.get(3));
        assertThat(answers()).containsExactly("pong " + other, "pong " + other);

        host.unload("hanger");
        assertThat(Await.until(Duration.ofSeconds(10), () -> answers().size() == 3)).as(answers().toString()).isTrue();
        say(other, "/ping");
        assertThat(Await.until(Duration.ofSeconds(10), () -> settled.size() == 5)).isTrue();
        Thread.sleep(100); // a second settling of the stalled chat's events would come now
        assertThat(settled).as("none twice").doesNotHaveDuplicates().hasSize(5);
    }
}
