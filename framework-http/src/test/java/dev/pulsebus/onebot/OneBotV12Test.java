package dev.pulsebus.onebot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulsebus.event.ChatRef;
import dev.pulsebus.event.Event;
import dev.pulsebus.event.GroupMessage;
import dev.pulsebus.event.MetaEvent;
import dev.pulsebus.event.Segment;
import dev.pulsebus.testing.Await;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** OneBot v12: reverse WebSocket, forward WebSocket and the HTTP webhook, with the spec's example events. */
@Timeout(60)
class OneBotV12Test {

    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path dir;
    private OneBotServer server;
    private final FakeOneBot fake = new FakeOneBot(12);

    private void start(String section) throws Exception {
        server = new OneBotServer(dir, "[adapters.onebot12]\n" + section);
    }

    @AfterEach
    void close() throws Exception {
        fake.close();
        if (server != null) {
            server.close();
        }
    }

    @Test
    void reverseWebSocketCarriesTheSpecsEventsAndAnswersWithSendMessage() throws Exception {
        start("mode = \"reverse-ws\"\naccess_token = \"t\"\n");
        List<Event> seen = new CopyOnWriteArrayList<>();
        server.server.bus().subscribe(GroupMessage.class, seen::add);
        server.server.bus().subscribe(MetaEvent.class, seen::add);
        FakeOneBot.Client c = fake.connect(server.ws("/onebot/v12/ws"), "Authorization", "Bearer t");
        c.send(Fixtures.V12_GROUP);
        // the spec's examples share one id, which the pipeline would drop as a repeat
        c.send(Fixtures.V12_STATUS_UPDATE.replace("b6e65187-5ac0-489c-b431-53078e9d2bbb", "status-1"));
        assertThat(Await.until(WAIT, () -> seen.size() == 2)).isTrue();
        GroupMessage g = (GroupMessage) seen.stream().filter(GroupMessage.class::isInstance).findFirst().orElseThrow();
        assertThat(g.id()).isEqualTo("b6e65187-5ac0-489c-b431-53078e9d2bbb");
        assertThat(g.self().userId()).isEqualTo("123234");
        assertThat(g.groupId()).isEqualTo("12345");
        assertThat(g.message().segments()).containsExactly(new Segment.Text("OneBot is not a bot"),
                new Segment.Image("e30f9684-3d54-4f65-b2da-db291a477f16"));
        assertThat(g.extra()).containsEntry("alt_message", "OneBot is not a bot[图片]").containsEntry("platform", "qq");
        assertThat(g.time().getNano()).isEqualTo(599013000);
        MetaEvent status = (MetaEvent) seen.stream().filter(MetaEvent.class::isInstance).findFirst().orElseThrow();
        assertThat(status.detailType()).isEqualTo("status_update");
        assertThat(status.fields().get("status")).isInstanceOf(Map.class);

        c.send(Fixtures.v12Group("id-2", "123234", "6284", "/echo v12"));
        FakeOneBot.Received action = fake.next();
        assertThat(action.action()).isEqualTo("send_message");
        assertThat(action.params().path("detail_type").asText()).isEqualTo("group");
        assertThat(action.params().path("group_id").asText()).isEqualTo("12345");
        assertThat(action.params().path("message").toString()).isEqualTo(
                "[{\"type\":\"reply\",\"data\":{\"message_id\":\"6284\"}},{\"type\":\"text\",\"data\":{\"text\":\"v12\"}}]");
        assertThat(action.frame().path("self").toString()).isEqualTo("{\"platform\":\"qq\",\"user_id\":\"123234\"}");
        ChatRef chat = ChatRef.group("onebot12", "12345");
        assertThat(server.sent(chat, "101")).isTrue();
        assertThat(server.get("/health")).contains("\"onebot12:123234\":{\"status\":\"UP\"")
                .contains("\"onebot12:1234567\":{\"status\":\"UP\"").contains("\"onebot12:2345678\":{\"status\":\"UP\"");
        c.send(Fixtures.V12_STATUS_UPDATE.replace("b6e65187-5ac0-489c-b431-53078e9d2bbb", "status-2")
                .replace("\"online\": true\n", "\"online\": false\n"));
        assertThat(Await.until(WAIT, () -> server.get("/health").contains("\"onebot12:2345678\":{\"status\":\"DOWN\""))).isTrue();
        assertThat(server.get("/health")).contains("\"status\":\"DEGRADED\"").contains("\"onebot12:123234\":{\"status\":\"UP\"");
    }

    @Test
    void forwardWebSocketConnectsAndAnswers() throws Exception {
        FakeOneBot.WsServer ws = fake.serveWebSocket("t");
        start("mode = \"forward-ws\"\nurl = \"" + ws.uri() + "\"\naccess_token = \"t\"\n");
        assertThat(Await.until(WAIT, () -> server.adapter().metrics.connections.get() == 1)).isTrue();
        ws.send(Fixtures.v12Group("id-3", "123234", "7000", "/echo fwd"));
        FakeOneBot.Received action = fake.next();
        assertThat(action.action()).isEqualTo("send_message");
        assertThat(action.params().path("message").get(1).path("data").path("text").asText()).isEqualTo("fwd");
        assertThat(ws.authorizations).containsExactly("Bearer t");
    }

    @Test
    void withAnApiUrlTheWebhooksRepliesGoToTheHttpApiNamingTheBot() throws Exception {
        java.net.URI api = fake.serveHttpApi();
        start("mode = \"http\"\nurl = \"" + api + "\"\naccess_token = \"t\"\n");
        HttpResponse<String> res = fake.post(server.http("/onebot/v12/http"),
                Fixtures.v12Group("id-5", "123234", "9000", "/echo api"), "", "Authorization", "Bearer t");
        assertThat(res.statusCode()).isEqualTo(204);
        FakeOneBot.Received action = fake.next();
        assertThat(action.on()).isEqualTo("http");
        assertThat(action.action()).isEqualTo("send_message");
        assertThat(action.authorization()).isEqualTo("Bearer t");
        assertThat(action.frame().path("self").path("platform").asText()).isEqualTo("qq");
        assertThat(action.frame().has("echo")).isFalse();
        ChatRef chat = ChatRef.group("onebot12", "12345");
        assertThat(server.sent(chat, "101")).isTrue();
        OneBotActionException failed = ReverseWebSocketV11Test.failure(server.adapter().actions("123234")
                .setGroupKick("1", "2", false).toCompletableFuture());
        assertThat(failed.kind()).isEqualTo(OneBotActionException.Kind.REFUSED);
        assertThat(server.adapter().actions("123234").getLoginInfo().toCompletableFuture()
                .get(10, java.util.concurrent.TimeUnit.SECONDS).path("user_id").asText()).isEqualTo("10001000");
        assertThat(fake.next().action()).isEqualTo("get_self_info");
    }

    @Test
    void theWebhookChecksTheTokenAndAnswersWithActions() throws Exception {
        start("mode = \"http\"\naccess_token = \"t\"\n");
        String event = Fixtures.v12Group("id-4", "123234", "8000", "/echo hook");
        assertThat(fake.post(server.http("/onebot/v12/http"), event, "").statusCode()).isEqualTo(401);
        HttpResponse<String> res = fake.post(server.http("/onebot/v12/http"), event, "", "Authorization", "Bearer t");
        assertThat(res.statusCode()).isEqualTo(200);
        assertThat(res.body()).isEqualTo("[{\"action\":\"send_message\",\"params\":{\"detail_type\":\"group\","
                + "\"group_id\":\"12345\",\"message\":[{\"type\":\"reply\",\"data\":{\"message_id\":\"8000\"}},"
                + "{\"type\":\"text\",\"data\":{\"text\":\"hook\"}}]}}]");
    }
}
