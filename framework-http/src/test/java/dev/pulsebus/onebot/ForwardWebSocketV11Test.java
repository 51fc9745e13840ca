package dev.pulsebus.onebot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulsebus.event.ChatRef;
import dev.pulsebus.event.Message;
import dev.pulsebus.event.Self;
import dev.pulsebus.pipeline.InboundResult;
import dev.pulsebus.pipeline.OutboundMessage;
import dev.pulsebus.testing.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** OneBot v11 over forward WebSocket: the server connects to the fake implementation's WebSocket server. */
@Timeout(60)
class ForwardWebSocketV11Test {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final Self BOT = new Self("onebot11", "10001000");
    private static final ChatRef GROUP = ChatRef.group("onebot11", "123456");

    @TempDir
    Path dir;
    private OneBotServer server;
    private final FakeOneBot fake = new FakeOneBot(11);
    private FakeOneBot.WsServer ws;

    private void start() throws Exception {
        ws = fake.serveWebSocket("s3cret");
        server = new OneBotServer(dir, """
                [adapters.onebot11]
                mode = "forward-ws"
                url = "%s"
                access_token = "s3cret"
                """.formatted(ws.uri()));
        assertThat(Await.until(WAIT, () -> ws.handshakes.get() == 1 && server.adapter().metrics.connections.get() == 1))
                .isTrue();
    }

    @AfterEach
    void close() throws Exception {
        if (server != null) {
            server.close();
        }
        fake.close();
    }

    @Test
    void connectsWithTheTokenAndAnswersACommand() throws Exception {
        start();
        assertThat(ws.authorizations).containsExactly("Bearer s3cret");
        ws.send(Fixtures.V11_LIFECYCLE);
        ws.send(Fixtures.v11Group(10001000, 5, 123456, "/echo forward"));
        FakeOneBot.Received action = fake.next();
        assertThat(action.action()).isEqualTo("send_group_msg");
        assertThat(action.params().path("message").get(1).path("data").path("text").asText()).isEqualTo("forward");
        assertThat(server.sent(GROUP, "101")).isTrue();
        assertThat(Await.until(WAIT, () -> server.get("/health").contains("\"onebot11:10001000\":{\"status\":\"UP\""))).isTrue();
    }

    @Test
    void messagesSentWhileTheConnectionIsDownGoOutInOrderOnceItIsBack() throws Exception {
        start();
        ws.refusing = true;
        ws.dropAll();
        assertThat(Await.until(WAIT, () -> server.adapter().metrics.connections.get() == 0)).isTrue();
        List<CompletableFuture<String>> sent = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            sent.add(server.server.pipeline().message(BOT).to(GROUP).text("queued " + i).send().toCompletableFuture());
        }
        assertThat(Await.until(WAIT, () -> server.adapter().metrics.reconnects.sum() >= 2))
                .as("it keeps trying while refused").isTrue();
        assertThat(sent).noneMatch(CompletableFuture::isDone);
        ws.refusing = false;
        for (int i = 1; i <= 3; i++) {
            FakeOneBot.Received r = fake.next();
            assertThat(r.params().path("message").get(0).path("data").path("text").asText()).isEqualTo("queued " + i);
        }
        assertThat(sent.get(2).get(10, TimeUnit.SECONDS)).isEqualTo("103");
        assertThat(ws.handshakes.get()).isEqualTo(2);
        String metrics = server.get("/metrics");
        assertThat(metrics).containsPattern("pulsebus_onebot_reconnects_total\\{version=\"11\"\\} [1-9]");
        assertThat(metrics).contains(
                "pulsebus_onebot_actions_total{action=\"send_group_msg\",outcome=\"ok\",version=\"11\"} 3.0");
        assertThat(metrics).contains("pulsebus_onebot_action_duration_seconds_count{version=\"11\"} 3");
        assertThat(metrics).contains("pulsebus_onebot_actions_total{action=\"other\",outcome=\"ok\",version=\"11\"}");
    }

    @Test
    void aConnectionWhoseHeartbeatsStopIsClosedAndMadeAgain() throws Exception {
        start();
        ws.send(Fixtures.v11Heartbeat(10001000, 1, 200));
        assertThat(Await.until(WAIT, () -> ws.handshakes.get() == 2)).as("reconnected").isTrue();
        assertThat(server.adapter().metrics.reconnects.sum()).isGreaterThanOrEqualTo(1);
    }

    @Test
    void pastTheQueuesCapacityAMessageIsRefusedAndCounted() throws Exception {
        OneBotAdapter adapter = OneBotAdapter.create(OneBotSettings.of(11, Mode.FORWARD_WS, "ws://127.0.0.1:9")
                .withQueueCapacity(2), null);
        adapter.start(e -> InboundResult.PUBLISHED);
        try {
            OutboundMessage m = new OutboundMessage(BOT, GROUP, Message.text("hi"), null);
            CompletableFuture<String> a = adapter.send(m).toCompletableFuture();
            CompletableFuture<String> b = adapter.send(m).toCompletableFuture();
            CompletableFuture<String> c = adapter.send(m).toCompletableFuture();
            OneBotActionException refused = ReverseWebSocketV11Test.failure(c);
            assertThat(refused.kind()).isEqualTo(OneBotActionException.Kind.REFUSED);
            assertThat(refused.getMessage()).contains("queue of 2 is full");
            assertThat(a).isNotDone();
            assertThat(b).isNotDone();
            assertThat(adapter.metrics.bad(OneBotMetrics.Bad.QUEUE_FULL)).isEqualTo(1);
        } finally {
            adapter.stop();
        }
    }
}
