package dev.pulsebus.onebot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pulsebus.server.PulseBusServer;
import dev.pulsebus.server.TestCluster;
import dev.pulsebus.testing.Await;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * OneBot v11 over forward WebSockets in a cluster of two servers (one JVM; the local RabbitMQ, Redis and
 * PostgreSQL): both connect to the implementation, which sends every event on both connections, as
 * implementations with several WebSocket clients do. Each message is answered once, each group's answers in
 * order. Skipped, saying why, when a server is absent.
 */
@Timeout(120)
class OneBotClusterTest {

    private static final int GROUPS = 6;
    private static final int PER_GROUP = 5;
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @TempDir
    Path dir;

    @Test
    void anEventSentToEveryInstanceIsAnsweredOnceInOrderPerGroup() throws Exception {
        try (TestCluster cluster = new TestCluster("OneBotClusterTest"); FakeOneBot fake = new FakeOneBot(11)) {
            FakeOneBot.WsServer ws = fake.serveWebSocket("");
            String toml = """
                    [adapters.onebot11]
                    mode = "forward-ws"
                    url = "%s"
                    """.formatted(ws.uri());
            List<PulseBusServer> servers = List.of(cluster.start(dir, "a", toml), cluster.start(dir, "b", toml));
            assertThat(Await.until(Duration.ofSeconds(20), () -> ws.open() == 2)).as("both connected").isTrue();
            long messageId = 1;
            for (int n = 0; n < PER_GROUP; n++) {
                for (int g = 0; g < GROUPS; g++) {
                    ws.sendToAll(Fixtures.v11Group(Fixtures.SELF, messageId++, 5000 + g, "/echo " + g + "-" + n));
                }
            }
            int expected = GROUPS * PER_GROUP;
            Map<Long, List<String>> byGroup = new LinkedHashMap<>();
            List<FakeOneBot.Received> sends = new ArrayList<>();
            for (int i = 0; i < expected; i++) {
                FakeOneBot.Received r = fake.next();
                assertThat(r.action()).isEqualTo("send_group_msg");
                sends.add(r);
            }
            assertThat(fake.actions.poll(1, TimeUnit.SECONDS)).as("no message answered twice").isNull();
            for (FakeOneBot.Received r : sends) {
                byGroup.computeIfAbsent(r.params().path("group_id").asLong(), k -> new ArrayList<>())
                        .add(r.params().path("message").get(1).path("data").path("text").asText());
            }
            for (int g = 0; g < GROUPS; g++) {
                List<String> want = new ArrayList<>();
                for (int n = 0; n < PER_GROUP; n++) {
                    want.add(g + "-" + n);
                }
                assertThat(byGroup.get(5000L + g)).as("group %d, in order", g).isEqualTo(want);
            }
            double a = TestCluster.eventsHandled(servers.get(0));
            double b = TestCluster.eventsHandled(servers.get(1));
            double records = 0;
            double seconds = 0;
            double max = 0;
            for (PulseBusServer s : servers) {
                records += TestCluster.metric(s, "pulsebus_cluster_reply_record_seconds_count", "");
                seconds += TestCluster.metric(s, "pulsebus_cluster_reply_record_seconds_sum", "");
                max = Math.max(max, TestCluster.metric(s, "pulsebus_cluster_reply_record_seconds_max", ""));
            }
            System.out.printf("[pulsebus] OneBotClusterTest: %d messages sent on both connections, answered once "
                    + "each; handled on a %.0f, on b %.0f; replies recorded %.2f ms after the platform's answer on "
                    + "average, %.1f ms at most%n", expected, a, b, seconds * 1000 / records, max * 1000);
            assertThat(records).as("every reply recorded as sent").isEqualTo(expected);
            assertThat(a + b).as("each handed over once").isEqualTo(expected);
        }
    }

    /**
     * The instance handling a message whose command replies twice loses the broker (as a killed one would) after the
     * implementation took the first reply and while it has not answered the second: the other instance runs the
     * message again and sends only the second, the first being recorded as sent.
     */
    @Test
    void aRedeliveredEventSendsOnlyTheRepliesNotRecordedAsSent() throws Exception {
        try (TestCluster cluster = new TestCluster("OneBotClusterTest"); FakeOneBot fake = new FakeOneBot(11);
             dev.pulsebus.testing.TcpProxy brokerA = new dev.pulsebus.testing.TcpProxy(5672);
             dev.pulsebus.testing.TcpProxy brokerB = new dev.pulsebus.testing.TcpProxy(5672)) {
            FakeOneBot.WsServer ws = fake.serveWebSocket("");
            List<dev.pulsebus.testing.TcpProxy> brokers = List.of(brokerA, brokerB);
            List<PulseBusServer> servers = new ArrayList<>();
            for (int i = 0; i < 2; i++) { // right after the [cluster] keys TestCluster writes
                servers.add(cluster.start(dir, i == 0 ? "a" : "b", """
                        broker = "amqp://guest:guest@127.0.0.1:%d"
                        [adapters.onebot11]
                        mode = "forward-ws"
                        url = "%s"
                        """.formatted(brokers.get(i).port(), ws.uri())));
                servers.get(i).modules().load(new Twice());
            }
            assertThat(Await.until(Duration.ofSeconds(20), () -> ws.open() == 2)).as("both connected").isTrue();
            java.util.concurrent.atomic.AtomicBoolean held = new java.util.concurrent.atomic.AtomicBoolean();
            fake.answer = frame -> frame.toString().contains("second of two") && held.compareAndSet(false, true)
                    ? null : fake.ok(frame); // the first "second" is never answered: its instance waits
            ws.sendToAll(Fixtures.v11Group(Fixtures.SELF, 1, 7000, "/twice"));
            assertThat(text(fake.next())).isEqualTo("first of two");
            assertThat(text(fake.next())).isEqualTo("second of two");
            int holder = -1;
            for (int i = 0; i < 2 && holder < 0; i++) {
                if (TestCluster.metric(servers.get(i), "pulsebus_module_invocations_total", "module=\"twice\"") > 0) {
                    holder = i;
                }
            }
            assertThat(holder).as("the instance that ran /twice").isNotNegative();
            brokers.get(holder).cut(); // its broker connection drops: the message goes to the other, redelivered
            assertThat(text(fake.next())).as("sent again: the implementation had not answered it").isEqualTo("second of two");
            assertThat(fake.actions.poll(2, TimeUnit.SECONDS)).as("the first reply not sent again").isNull();
            PulseBusServer other = servers.get(1 - holder);
            assertThat(TestCluster.metric(other, "pulsebus_cluster_replies_not_resent_total", "platform=\"onebot11\""))
                    .isEqualTo(1);
            assertThat(TestCluster.metric(other, "pulsebus_cluster_redeliveries_total", "")).isPositive();
        }
    }

    private static String text(FakeOneBot.Received r) {
        assertThat(r.action()).isEqualTo("send_group_msg");
        return r.params().path("message").get(1).path("data").path("text").asText();
    }

    /** A command that replies twice. */
    static final class Twice implements dev.pulsebus.module.BotModule {
        @Override
        public String name() {
            return "twice";
        }

        @Override
        public void onLoad(dev.pulsebus.module.ModuleContext ctx) {
            ctx.commands().register(dev.pulsebus.command.Command.named("twice").handler(call -> {
                call.reply("first of two");
                call.reply("second of two");
            }));
        }
    }

    /**
     * The implementation's reverse WebSocket reaches instance a alone (one URL, or a load balancer in front): the
     * messages of chats whose partition b holds are handled on b, and b's replies and actions go out on a's
     * connection (relayed through the broker), their responses back to b. An action that fails comes back as the
     * implementation's failure; one of a bot connected nowhere is refused at once, saying so.
     */
    @Test
    void actionsOfABotConnectedToAnotherInstanceGoThroughIt() throws Exception {
        try (TestCluster cluster = new TestCluster("OneBotClusterTest"); FakeOneBot fake = new FakeOneBot(11)) {
            String toml = """
                    [adapters.onebot11]
                    mode = "reverse-ws"
                    action_timeout_ms = 1500
                    """;
            List<PulseBusServer> servers = List.of(cluster.start(dir, "a", toml), cluster.start(dir, "b", toml));
            assertThat(Await.until(Duration.ofSeconds(30), () -> TestCluster.metric(servers.get(1),
                    "pulsebus_cluster_partitions_held", "") >= TestCluster.PARTITIONS / 2))
                    .as("b holds its share of the partitions").isTrue();
            assertThat(health(servers.get(1))).as("no bot anywhere yet").contains("\"onebot11\":{\"status\":\"DOWN\"");
            URI a = URI.create("ws://127.0.0.1:" + servers.get(0).port() + "/onebot/v11/ws");
            FakeOneBot.Client client = fake.connect(a, "X-Self-ID", Long.toString(Fixtures.SELF), "X-Client-Role",
                    "Universal");
            assertThat(Await.until(Duration.ofSeconds(10), () -> health(servers.get(1)).startsWith("{\"status\":\"UP\"")
                    && health(servers.get(1)).contains("\"onebot11:10001000\":{\"status\":\"UP\"")))
                    .as("b shows the bot connected to a as up: %s", health(servers.get(1))).isTrue();
            long messageId = 1;
            for (int n = 0; n < PER_GROUP; n++) {
                for (int g = 0; g < GROUPS; g++) {
                    client.send(Fixtures.v11Group(Fixtures.SELF, messageId++, 6000 + g, "/echo " + g + "-" + n));
                }
            }
            Map<Long, List<String>> byGroup = new LinkedHashMap<>();
            for (int i = 0; i < GROUPS * PER_GROUP; i++) {
                FakeOneBot.Received r = fake.next();
                assertThat(r.action()).isEqualTo("send_group_msg");
                assertThat(r.on()).as("on the one connection").isSameAs(client);
                byGroup.computeIfAbsent(r.params().path("group_id").asLong(), k -> new ArrayList<>())
                        .add(r.params().path("message").get(1).path("data").path("text").asText());
            }
            assertThat(fake.actions.poll(1, TimeUnit.SECONDS)).as("no message answered twice").isNull();
            for (int g = 0; g < GROUPS; g++) {
                List<String> want = new ArrayList<>();
                for (int n = 0; n < PER_GROUP; n++) {
                    want.add(g + "-" + n);
                }
                assertThat(byGroup.get(6000L + g)).as("group %d, in order", g).isEqualTo(want);
            }
            double relayed = TestCluster.metric(servers.get(1), "pulsebus_onebot_relayed_total", "direction=\"out\"");
            assertThat(relayed).as("b's replies went through a").isPositive();
            assertThat(TestCluster.metric(servers.get(0), "pulsebus_onebot_relayed_total", "direction=\"in\""))
                    .isEqualTo(relayed);

            OneBotActions onB = servers.get(1).adapters(OneBotAdapter.class).get(0).actions(Long.toString(Fixtures.SELF));
            assertThat(onB.getLoginInfo().toCompletableFuture().get(10, TimeUnit.SECONDS).path("nickname").asText())
                    .isEqualTo("PulseBus");
            assertThat(fake.next().action()).isEqualTo("get_login_info");
            fake.answer = request -> FakeOneBot.failed(request, 100, "group not found");
            assertThatThrownBy(() -> onB.getGroupInfo("42").toCompletableFuture().get(10, TimeUnit.SECONDS))
                    .cause().isInstanceOfSatisfying(OneBotActionException.class, e -> {
                        assertThat(e.kind()).isEqualTo(OneBotActionException.Kind.FAILED);
                        assertThat(e.retcode()).isEqualTo(100);
                        assertThat(e.getMessage()).contains("get_group_info", "group not found", "on instance a");
                    });
            OneBotActions nowhere = servers.get(1).adapters(OneBotAdapter.class).get(0).actions("424242");
            assertThatThrownBy(() -> nowhere.getLoginInfo().toCompletableFuture().get(1, TimeUnit.SECONDS))
                    .as("refused at once, not after action_timeout_ms").cause()
                    .isInstanceOfSatisfying(OneBotActionException.class, e -> {
                        assertThat(e.kind()).isEqualTo(OneBotActionException.Kind.REFUSED);
                        assertThat(e.getMessage()).contains("424242", "here or on another instance");
                    });
            client.drop();
            assertThat(Await.until(Duration.ofSeconds(15), () -> !health(servers.get(1)).contains(
                    "\"onebot11:10001000\":{\"status\":\"UP\""))).as("b sees the bot gone from a").isTrue();
            System.out.printf("[pulsebus] OneBotClusterTest: %d messages on a reverse WebSocket to a alone, answered "
                    + "once each, in order; %.0f of the actions made on b went through a%n", GROUPS * PER_GROUP,
                    relayed);
        }
    }

    private static String health(PulseBusServer server) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(server.url() + "/health")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }
}
