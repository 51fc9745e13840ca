package dev.pulsebus.onebot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulsebus.server.PulseBusServer;
import dev.pulsebus.server.TestCluster;
import dev.pulsebus.testing.Await;
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
            System.out.printf("[pulsebus] OneBotClusterTest: %d messages sent on both connections, answered once "
                    + "each; handled on a %.0f, on b %.0f%n", expected, a, b);
            assertThat(a + b).as("each handed over once").isEqualTo(expected);
        }
    }
}
