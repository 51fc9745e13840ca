package dev.pulsebus.onebot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulsebus.event.ChatRef;
import dev.pulsebus.event.GroupMessage;
import dev.pulsebus.event.RequestEvent;
import dev.pulsebus.testing.Await;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** OneBot v11 over HTTP: events POSTed to /onebot/v11/http, signed; replies as quick operations or over the HTTP API. */
@Timeout(60)
class HttpV11Test {

    private static final Duration WAIT = Duration.ofSeconds(10);

    @TempDir
    Path dir;
    private OneBotServer server;
    private final FakeOneBot fake = new FakeOneBot(11);

    private void start(String url) throws Exception {
        server = new OneBotServer(dir, """
                [adapters.onebot11]
                mode = "http"
                url = "%s"
                access_token = "api-token"
                secret = "k3y"
                """.formatted(url));
    }

    @AfterEach
    void close() throws Exception {
        fake.close();
        if (server != null) {
            server.close();
        }
    }

    @Test
    void anEventWithoutTheRightSignatureGets403() throws Exception {
        start("");
        String event = Fixtures.V11_NOTICES[5][2];
        assertThat(fake.post(server.http("/onebot/v11/http"), event, "").statusCode()).isEqualTo(403);
        assertThat(fake.post(server.http("/onebot/v11/http"), event, "wrong").statusCode()).isEqualTo(403);
        assertThat(fake.post(server.http("/onebot/v11/http"), event, "", "X-Signature", "sha1=zz").statusCode())
                .isEqualTo(403);
        assertThat(fake.post(server.http("/onebot/v11/http"), event, "k3y").statusCode()).isEqualTo(204);
        assertThat(fake.post(server.http("/onebot/v11/http"), "not json", "k3y").statusCode()).isEqualTo(400);
        assertThat(server.get("/health")).contains("\"onebot11:10001000\":{\"status\":\"UP\"");
    }

    @Test
    void anAccessTokenWithoutSecretIsWarnedOfInHealth() throws Exception {
        start("");
        assertThat(server.get("/health")).doesNotContain("warnings");
        server.close();
        server = new OneBotServer(dir, """
                [adapters.onebot11]
                mode = "http"
                access_token = "api-token"
                """);
        assertThat(fake.post(server.http("/onebot/v11/http"), Fixtures.V11_NOTICES[5][2], "").statusCode())
                .as("nothing checks a post: hence the warning").isEqualTo(204);
        assertThat(server.get("/health")).contains("\"warnings\":[\"adapters.onebot11: mode \\\"http\\\" without secret: "
                + "posted events are not authenticated");
    }

    @Test
    void withoutAnApiUrlACommandIsAnsweredAsAQuickOperation() throws Exception {
        start("");
        HttpResponse<String> res = fake.post(server.http("/onebot/v11/http"),
                Fixtures.v11Group(10001000, 7, 123456, "/echo quick"), "k3y");
        assertThat(res.statusCode()).isEqualTo(200);
        assertThat(res.body()).isEqualTo("{\"reply\":[{\"type\":\"reply\",\"data\":{\"id\":\"7\"}},"
                + "{\"type\":\"text\",\"data\":{\"text\":\"quick\"}}],\"auto_escape\":false,\"at_sender\":false}");
        HttpResponse<String> none = fake.post(server.http("/onebot/v11/http"),
                Fixtures.v11Group(10001000, 8, 123456, "no command here"), "k3y");
        assertThat(none.statusCode()).isEqualTo(204);
    }

    @Test
    void actionsOnTheEventBeingHandledBecomeItsQuickOperations() throws Exception {
        start("");
        OneBotActions actions = server.adapter().actions("10001000");
        server.server.bus().subscribe(GroupMessage.class, e -> {
            actions.deleteMessage(e.messageId());
            actions.setGroupBan(e.groupId(), e.userId(), Duration.ofMinutes(10));
        });
        server.server.bus().subscribe(RequestEvent.class, e -> actions.setFriendAddRequest(
                (String) e.fields().get("flag"), true, "from PulseBus"));
        HttpResponse<String> message = fake.post(server.http("/onebot/v11/http"),
                Fixtures.v11Group(10001000, 11, 123456, "spam"), "k3y");
        assertThat(message.statusCode()).isEqualTo(200);
        assertThat(message.body()).isEqualTo("{\"delete\":true,\"ban\":true,\"ban_duration\":600}");
        HttpResponse<String> request = fake.post(server.http("/onebot/v11/http"), Fixtures.V11_REQUESTS[0][2], "k3y");
        assertThat(request.body()).isEqualTo("{\"approve\":true,\"remark\":\"from PulseBus\"}");
        OneBotActionException late = ReverseWebSocketV11Test.failure(actions.deleteMessage("11").toCompletableFuture());
        assertThat(late.kind()).isEqualTo(OneBotActionException.Kind.REFUSED);
    }

    @Test
    void withAnApiUrlRepliesGoToTheImplementationsHttpApi() throws Exception {
        start(fake.serveHttpApi().toString());
        HttpResponse<String> res = fake.post(server.http("/onebot/v11/http"),
                Fixtures.v11Group(10001000, 9, 123456, "/echo " + "long ".repeat(20_000)), "k3y");
        assertThat(res.statusCode()).as("a body over max_body_bytes but within max_frame_bytes").isEqualTo(204);
        FakeOneBot.Received action = fake.next();
        assertThat(action.action()).isEqualTo("send_group_msg");
        assertThat(action.authorization()).isEqualTo("Bearer api-token");
        assertThat(action.params().path("group_id").asLong()).isEqualTo(123456);
        ChatRef chat = ChatRef.group("onebot11", "123456");
        assertThat(server.sent(chat, "101")).isTrue();
    }

    @Test
    void heartbeatsThatStopMarkTheBotDown() throws Exception {
        start("");
        fake.post(server.http("/onebot/v11/http"), Fixtures.v11Heartbeat(10001000, 1, 1000), "k3y");
        assertThat(server.get("/health")).contains("\"onebot11:10001000\":{\"status\":\"UP\"");
        assertThat(Await.until(WAIT, () -> server.get("/health").contains("\"onebot11:10001000\":{\"status\":\"DOWN\""))).isTrue();
        assertThat(server.get("/health")).contains("\"status\":\"DEGRADED\"");
    }
}
