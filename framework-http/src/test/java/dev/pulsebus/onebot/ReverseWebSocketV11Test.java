package dev.pulsebus.onebot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pulsebus.event.ChatRef;
import dev.pulsebus.event.Event;
import dev.pulsebus.event.GroupMessage;
import dev.pulsebus.event.Message;
import dev.pulsebus.event.MetaEvent;
import dev.pulsebus.event.NoticeEvent;
import dev.pulsebus.event.PrivateMessage;
import dev.pulsebus.event.RequestEvent;
import dev.pulsebus.event.Segment;
import dev.pulsebus.internal.Json;
import dev.pulsebus.testing.Await;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** OneBot v11 over reverse WebSocket: the fake implementation connects to the real server at /onebot/v11/ws. */
@Timeout(60)
class ReverseWebSocketV11Test {

    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final String TOKEN = "0123";

    @TempDir
    Path dir;
    private OneBotServer server;
    private final FakeOneBot fake = new FakeOneBot(11);

    private OneBotServer start(String extra) throws Exception {
        server = new OneBotServer(dir, """
                [adapters.onebot11]
                enabled = true
                mode = "reverse-ws"
                access_token = "0123"
                """ + extra);
        return server;
    }

    private FakeOneBot.Client bot(long self, String role, String path) throws Exception {
        return fake.connect(server.ws(path), "X-Self-ID", Long.toString(self), "X-Client-Role", role,
                "Authorization", "Bearer " + TOKEN);
    }

    @AfterEach
    void close() throws Exception {
        fake.close();
        if (server != null) {
            server.close();
        }
    }

    @Test
    void commandIsAnsweredOnTheReceivingBotsConnectionWithTheMessageIdOfTheResponse() throws Exception {
        start("");
        FakeOneBot.Client first = bot(10001000, "Universal", "/onebot/v11/ws");
        FakeOneBot.Client second = bot(20002000, "Universal", "/onebot/v11/ws");
        second.send(Fixtures.v11Group(20002000, 5, 123456, "/echo hi"));

        FakeOneBot.Received action = fake.next();
        assertThat(action.on()).isSameAs(second);
        assertThat(action.action()).isEqualTo("send_group_msg");
        assertThat(action.params().get("group_id").isNumber()).isTrue();
        assertThat(action.params().get("group_id").asLong()).isEqualTo(123456);
        assertThat(action.params().get("message").toString())
                .isEqualTo("[{\"type\":\"reply\",\"data\":{\"id\":\"5\"}},{\"type\":\"text\",\"data\":{\"text\":\"hi\"}}]");
        assertThat(action.frame().path("echo").asText()).isNotEmpty();
        ChatRef chat = ChatRef.group("onebot11", "123456");
        assertThat(server.sent(chat, "101")).as("the reply recorded with the platform's message id").isTrue();
        assertThat(fake.actions).isEmpty();
        assertThat(first.open()).isTrue();
        assertThat(server.get("/health")).as("/health counts every platform's events")
                .contains("\"events\":{\"received\":1,\"handled\":1}");
    }

    @Test
    void aUserPermissionNamingOneBotAdmitsItsUserAndNotTheHttpUserOfTheSameId() throws Exception {
        start("");
        server.server.commands().register(dev.pulsebus.command.Command.named("op")
                .permission(dev.pulsebus.command.Permissions.users(java.util.Set.of("onebot11:12345678")))
                .handler(c -> c.reply("done")));
        FakeOneBot.Client bot = bot(10001000, "Universal", "/onebot/v11/ws");
        bot.send(Fixtures.v11Group(10001000, 5, 123456, "/op")); // from user 12345678
        assertThat(fake.next().params().get("message").toString()).contains("\"text\":\"done\"");

        java.net.http.HttpResponse<String> said = java.net.http.HttpClient.newHttpClient().send(
                java.net.http.HttpRequest.newBuilder(server.http("/api/rooms/ops/messages"))
                        .header("Content-Type", "application/json")
                        .POST(java.net.http.HttpRequest.BodyPublishers.ofString(
                                "{\"user\": \"12345678\", \"text\": \"/op\"}")).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        assertThat(said.statusCode()).isEqualTo(201);
        assertThat(Await.until(WAIT, () -> server.history(ChatRef.group("http", "ops")).stream()
                .anyMatch(r -> r.outbound() && r.message().plainText().equals("You are not allowed to use /op."))))
                .as("the HTTP user who names herself 12345678 is refused").isTrue();
    }

    @Test
    void aMissingOrWrongTokenIsRefusedWith401BeforeTheUpgrade() throws Exception {
        start("");
        assertThatThrownBy(() -> fake.connect(server.ws("/onebot/v11/ws"), "X-Self-ID", "1"))
                .satisfies(e -> assertThat(rootHandshake(e).getResponse().statusCode()).isEqualTo(401));
        assertThatThrownBy(() -> fake.connect(server.ws("/onebot/v11/ws"), "Authorization", "Bearer 123"))
                .satisfies(e -> assertThat(rootHandshake(e).getResponse().statusCode()).isEqualTo(401));
        assertThatThrownBy(() -> fake.connect(server.ws("/onebot/v11/ws"), "X-Self-ID", "1".repeat(65),
                "Authorization", "Bearer " + TOKEN))
                .satisfies(e -> assertThat(rootHandshake(e).getResponse().statusCode()).as("an id past 64 characters")
                        .isEqualTo(400));
        FakeOneBot.Client byQuery = fake.connect(server.ws("/onebot/v11/ws?access_token=0123"), "X-Self-ID", "1");
        assertThat(byQuery.open()).isTrue();
        byQuery.send(Fixtures.v11Group(10001000, 6, 123456, "frames are not requests"));
        assertThat(server.get("/metrics")).as("the upgrade timed by its path; its frames not at all")
                .contains("http_server_requests_seconds_count{method=\"GET\",route=\"/onebot/v11/ws\",status=\"401\"} 2")
                .contains("http_server_requests_seconds_count{method=\"GET\",route=\"/onebot/v11/ws\",status=\"101\"} 1");
    }

    private static WebSocketHandshakeException rootHandshake(Throwable e) {
        Throwable t = e;
        while (!(t instanceof WebSocketHandshakeException) && t.getCause() != null) {
            t = t.getCause();
        }
        return (WebSocketHandshakeException) t;
    }

    @Test
    void eventsOnTheEventConnectionAreAnsweredOnTheApiConnection() throws Exception {
        start("");
        FakeOneBot.Client events = bot(10001000, "Event", "/onebot/v11/ws/event");
        FakeOneBot.Client api = bot(10001000, "API", "/onebot/v11/ws/api");
        events.send(Fixtures.v11Group(10001000, 6, 123456, "/echo split"));
        FakeOneBot.Received action = fake.next();
        assertThat(action.on()).isSameAs(api);
        assertThat(action.params().path("message").get(1).path("data").path("text").asText()).isEqualTo("split");
    }

    @Test
    void badFramesAreCountedAndTheConnectionStaysUp() throws Exception {
        start("max_frame_bytes = 4096\n");
        FakeOneBot.Client c = bot(10001000, "Universal", "/onebot/v11/ws");
        OneBotMetrics m = server.adapter().metrics;
        List<Event> seen = new CopyOnWriteArrayList<>();
        server.server.bus().subscribe(NoticeEvent.class, seen::add);

        c.send("this is not JSON {");
        c.send("[1, 2]");
        c.sendBinary(new byte[] {1, 2, 3});
        c.send(Fixtures.v11Group(10001000, 8, 123456, "x".repeat(5000)));
        c.send("{\"time\": 1, \"self_id\": 10001000, \"post_type\": \"message_sent_by_someone\"}");
        c.send("""
                {"time": 1515204254, "self_id": 10001000, "post_type": "notice", "notice_type": "group_upload",
                 "group_id": 123456, "user_id": null, "file": {"id": null, "name": "a.txt", "size": 1, "busid": 1}}""");
        c.send("{\"time\": 1, \"self_id\": 10001000, \"post_type\": \"message\", \"message_type\": \"group\"}");
        c.send(Fixtures.v11Group(10001000, 9, 123456, "/echo still here"));

        FakeOneBot.Received action = fake.next();
        assertThat(action.params().path("message").get(1).path("data").path("text").asText()).isEqualTo("still here");
        assertThat(m.bad(OneBotMetrics.Bad.NOT_JSON)).isEqualTo(2);
        assertThat(m.bad(OneBotMetrics.Bad.BINARY)).isEqualTo(1);
        assertThat(m.bad(OneBotMetrics.Bad.OVERSIZED)).isEqualTo(1);
        assertThat(m.bad(OneBotMetrics.Bad.UNKNOWN_TYPE)).isEqualTo(1);
        assertThat(m.bad(OneBotMetrics.Bad.INVALID)).isEqualTo(1);
        assertThat(m.bad(OneBotMetrics.Bad.NULL)).isEqualTo(1);
        assertThat(Await.until(WAIT, () -> seen.size() == 1)).isTrue();
        NoticeEvent upload = (NoticeEvent) seen.get(0);
        assertThat(upload.fields()).containsEntry("group_id", 123456L).doesNotContainKey("user_id");
        assertThat(upload.fields().get("file")).isEqualTo(Map.of("name", "a.txt", "size", 1L, "busid", 1L));
        assertThat(c.open()).isTrue();
        String metrics = server.get("/metrics");
        assertThat(metrics).contains("pulsebus_onebot_bad_frames_total{reason=\"oversized\",version=\"11\"} 1.0");
        assertThat(metrics).contains("pulsebus_onebot_frames_total{direction=\"out\",kind=\"action\",version=\"11\"} 1.0");
        assertThat(metrics).contains("pulsebus_onebot_connections{version=\"11\"} 1.0");
    }

    @Test
    void everyNoticeAndRequestOfTheSpecReachesTheBusWithItsFields() throws Exception {
        start("");
        FakeOneBot.Client c = bot(10001000, "Universal", "/onebot/v11/ws");
        List<Event> seen = new CopyOnWriteArrayList<>();
        server.server.bus().subscribe(NoticeEvent.class, seen::add);
        server.server.bus().subscribe(RequestEvent.class, seen::add);
        for (String[] n : Fixtures.V11_NOTICES) {
            c.send(n[2]);
        }
        for (String[] r : Fixtures.V11_REQUESTS) {
            c.send(r[2]);
        }
        c.send(Fixtures.V11_NOTICES[0][2]); // a retransmit: the same id, dropped
        int expected = Fixtures.V11_NOTICES.length + Fixtures.V11_REQUESTS.length;
        assertThat(Await.until(WAIT, () -> seen.size() >= expected)).isTrue();
        c.send(Fixtures.v11Group(10001000, 10, 123456, "/echo done"));
        fake.next(); // everything before it has been handled
        assertThat(seen).hasSize(expected);
        for (int i = 0; i < Fixtures.V11_NOTICES.length; i++) {
            NoticeEvent e = (NoticeEvent) seen.stream().filter(NoticeEvent.class::isInstance).toList().get(i);
            assertThat(e.detailType()).isEqualTo(Fixtures.V11_NOTICES[i][0]);
            assertThat(e.subType()).isEqualTo(Fixtures.V11_NOTICES[i][1]);
            assertThat(e.self().userId()).isEqualTo("10001000");
            assertThat(e.fields()).containsEntry("user_id", 12345678L);
        }
        List<RequestEvent> requests = seen.stream().filter(RequestEvent.class::isInstance)
                .map(RequestEvent.class::cast).toList();
        assertThat(requests).extracting(RequestEvent::detailType).containsExactly("friend", "group");
        assertThat(requests.get(1).subType()).isEqualTo("add");
        assertThat(requests.get(1).fields()).containsEntry("flag", "g-1").containsEntry("comment", "求加");
        NoticeEvent honor = (NoticeEvent) seen.get(Fixtures.V11_NOTICES.length - 1);
        assertThat(honor.fields()).containsEntry("honor_type", "talkative");
    }

    @Test
    void messagesInStringAndArrayFormKeepEverySegmentAndField() throws Exception {
        start("");
        FakeOneBot.Client c = bot(10001000, "Universal", "/onebot/v11/ws");
        List<Event> seen = new CopyOnWriteArrayList<>();
        server.server.bus().subscribe(GroupMessage.class, seen::add);
        server.server.bus().subscribe(PrivateMessage.class, seen::add);
        c.send(Fixtures.V11_GROUP_CQ);
        c.send(Fixtures.V11_PRIVATE);
        assertThat(Await.until(WAIT, () -> seen.size() == 2)).isTrue();
        GroupMessage group = (GroupMessage) seen.stream().filter(GroupMessage.class::isInstance).findFirst().orElseThrow();
        assertThat(group.message()).isEqualTo(new Message(List.of(new Segment.Reply("76", null),
                new Segment.Mention("10001000"), new Segment.Text(" - [x] 使用 `&data`"),
                new Segment.Other("face", Map.of("id", "178")),
                new Segment.Other("share", Map.of("title", "震惊,小伙睡觉前居然...", "url", "http://baidu.com/?a=1&b=2")))));
        assertThat(group.groupId()).isEqualTo("123456");
        assertThat(group.extra()).containsKey("sender").doesNotContainKey("anonymous");
        PrivateMessage dm = (PrivateMessage) seen.stream().filter(PrivateMessage.class::isInstance).findFirst().orElseThrow();
        assertThat(dm.message().plainText()).isEqualTo("你好～");
        assertThat(dm.subType()).isEqualTo("friend");
        assertThat(dm.extra()).containsEntry("font", 456L).containsEntry("raw_message", "你好～")
                .containsEntry("sender", Map.of("nickname", "小不点", "sex", "male", "age", 18L));
        assertThat(server.adapter().metrics.bad(OneBotMetrics.Bad.NULL)).as("anonymous: null is the spec's").isZero();
    }

    @Test
    void anActionFailsWithItsRetcodeOrAfterTheTimeout() throws Exception {
        start("action_timeout_ms = 2000\n"); // room for the first call on a loaded machine
        bot(10001000, "Universal", "/onebot/v11/ws");
        OneBotActions actions = server.adapter().actions("10001000");
        assertThat(actions.getLoginInfo().toCompletableFuture().get(10, TimeUnit.SECONDS).path("nickname").asText())
                .isEqualTo("PulseBus");

        fake.answer = request -> FakeOneBot.failed(request, 1404, "no such group");
        assertThat(failure(actions.getGroupInfo("123456").toCompletableFuture()))
                .satisfies(e -> {
                    assertThat(e.kind()).isEqualTo(OneBotActionException.Kind.FAILED);
                    assertThat(e.retcode()).isEqualTo(1404);
                    assertThat(e.getMessage()).contains("get_group_info").contains("1404").contains("no such group");
                });

        fake.answer = request -> null;
        OneBotActionException timeout = failure(actions.getGroupMemberList("123456").toCompletableFuture());
        assertThat(timeout.kind()).isEqualTo(OneBotActionException.Kind.TIMEOUT);
        assertThat(timeout.getMessage()).contains("get_group_member_list").contains("2000 ms");
        assertThat(server.adapter().metrics.actions("get_group_member_list", OneBotMetrics.Outcome.TIMEOUT))
                .isEqualTo(1);
    }

    @Test
    void aLostConnectionFailsItsActionsInFlightAtOnce() throws Exception {
        start("action_timeout_ms = 600000\n");
        FakeOneBot.Client c = bot(10001000, "Universal", "/onebot/v11/ws");
        fake.answer = request -> null;
        CompletableFuture<JsonNode> a = server.adapter().actions("10001000").getGroupInfo("1").toCompletableFuture();
        CompletableFuture<JsonNode> b = server.adapter().actions("10001000").getMessage("2").toCompletableFuture();
        fake.next();
        fake.next();
        c.drop();
        assertThat(failure(a).kind()).isEqualTo(OneBotActionException.Kind.DISCONNECTED);
        assertThat(failure(b).kind()).isEqualTo(OneBotActionException.Kind.DISCONNECTED);
        OneBotActionException none = failure(server.adapter().actions("10001000").deleteMessage("3").toCompletableFuture());
        assertThat(none.kind()).isEqualTo(OneBotActionException.Kind.REFUSED);
    }

    @Test
    void heartbeatsThatStopCloseTheConnectionAndHealthShowsTheBotDown() throws Exception {
        start("");
        assertThat(server.get("/health")).contains("\"onebot11\":{\"status\":\"DOWN\"").contains("\"DEGRADED\"");
        FakeOneBot.Client c = bot(10001000, "Universal", "/onebot/v11/ws");
        c.send(Fixtures.V11_LIFECYCLE);
        c.send(Fixtures.v11Heartbeat(10001000, 1, 1000)); // closed 2 s after: time to see it UP first
        assertThat(Await.until(WAIT, () -> server.get("/health").contains("\"onebot11:10001000\":{\"status\":\"UP\""))).isTrue();
        assertThat(server.get("/health")).startsWith("{\"status\":\"UP\"");
        assertThat(server.get("/metrics")).contains("pulsebus_component_up{component=\"onebot11:10001000\"} 1.0");
        assertThat(c.closed.get(10, TimeUnit.SECONDS)).as("closed after twice the interval without a heartbeat")
                .isNotNull();
        assertThat(Await.until(WAIT, () -> server.get("/health").contains("\"onebot11:10001000\":{\"status\":\"DOWN\""))).isTrue();
        assertThat(server.get("/health")).contains("\"status\":\"DEGRADED\"");
    }

    static OneBotActionException failure(CompletableFuture<?> f) throws Exception {
        try {
            f.get(10, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(OneBotActionException.class);
            return (OneBotActionException) e.getCause();
        }
        throw new AssertionError("the action did not fail");
    }

    @Test
    void theLifecycleConnectOfAQuickReconnectIsNoDuplicate() throws Exception {
        start("");
        List<MetaEvent> seen = new CopyOnWriteArrayList<>();
        server.server.bus().subscribe(MetaEvent.class, e -> {
            if (e.detailType().equals("lifecycle")) {
                seen.add(e);
            }
        });
        String connect = """
                {"time": 1700000000, "self_id": 10001000, "post_type": "meta_event",
                 "meta_event_type": "lifecycle", "sub_type": "connect"}""";
        FakeOneBot.Client first = bot(10001000, "Universal", "/onebot/v11/ws");
        first.send(connect);
        first.drop();
        FakeOneBot.Client second = bot(10001000, "Universal", "/onebot/v11/ws");
        second.send(connect); // the same bytes within the same second: a reconnect, not a repeat
        assertThat(Await.until(Duration.ofSeconds(10), () -> seen.size() == 2)).isTrue();
        assertThat(seen.get(0).id()).isNotEqualTo(seen.get(1).id());
        assertThat(server.get("/metrics")).contains("pulsebus_messages_duplicates_total 0.0");
    }

    @Test
    void elevenHundredBotsThatCameAndWentLeaveRoomForANewOneAndHealthStaysBounded() throws Exception {
        start("");
        HttpClient client = HttpClient.newHttpClient();
        WebSocket.Listener quiet = new WebSocket.Listener() { };
        for (int i = 0; i < 1100; i++) {
            WebSocket ws = client.newWebSocketBuilder().header("X-Self-ID", Long.toString(500_000 + i))
                    .header("Authorization", "Bearer " + TOKEN)
                    .buildAsync(server.ws("/onebot/v11/ws"), quiet).get(10, TimeUnit.SECONDS);
            ws.abort();
        }
        OneBotAdapter adapter = server.adapter();
        assertThat(Await.until(Duration.ofSeconds(20), () -> adapter.metrics.connections.get() == 0)).isTrue();
        assertThat(adapter.bots.size()).isEqualTo(Bots.MAX);

        FakeOneBot.Client fresh = bot(99_000_001, "Universal", "/onebot/v11/ws");
        fresh.send(Fixtures.v11Group(99_000_001, 7, 123456, "/echo still here"));
        FakeOneBot.Received action = fake.next();
        assertThat(action.on()).as("the new bot is tracked and answered on its connection").isSameAs(fresh);
        assertThat(action.params().path("message").get(1).path("data").path("text").asText()).isEqualTo("still here");
        assertThat(adapter.bots.find("99000001")).isNotNull();
        assertThat(adapter.bots.find("500000")).as("the bot gone longest made way").isNull();
        assertThat(adapter.bots.size()).isEqualTo(Bots.MAX);

        String body = server.get("/health");
        JsonNode health = Json.MAPPER.readTree(body);
        long named = 0;
        for (Iterator<String> names = health.path("components").fieldNames(); names.hasNext(); ) {
            if (names.next().startsWith("onebot11:")) {
                named++;
            }
        }
        assertThat(named).isEqualTo(Bots.LISTED);
        assertThat(health.path("unlisted_bots").path("onebot11").asInt()).isEqualTo(Bots.MAX - Bots.LISTED);
        assertThat(health.path("status").asText()).isEqualTo("DEGRADED"); // the bots that left are down
        assertThat(body.length()).isLessThan(4096);
        assertThat(server.get("/metrics")).contains("pulsebus_onebot_bots_untracked_total{version=\"11\"} 0.0");
    }
}
