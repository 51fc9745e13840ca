package dev.pulsebus.telegram;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.pulsebus.event.ChatRef;
import dev.pulsebus.event.Event;
import dev.pulsebus.event.Message;
import dev.pulsebus.event.NoticeEvent;
import dev.pulsebus.event.Self;
import dev.pulsebus.bus.EventBus;
import dev.pulsebus.event.MessageEvent;
import dev.pulsebus.kv.Kv;
import dev.pulsebus.pipeline.HandlerWatch;
import dev.pulsebus.pipeline.Inbound;
import dev.pulsebus.pipeline.InboundResult;
import dev.pulsebus.pipeline.MessagePipeline;
import dev.pulsebus.pipeline.OutboundMessage;
import dev.pulsebus.testing.Await;
import dev.pulsebus.testing.MemoryKvStore;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.jspecify.annotations.Nullable;

/** What the emulator cannot show, against {@link FakeBotApi}: offsets, errors, backoff, bad updates. */
class TelegramFakeApiTest {

    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final Self BOT = new Self("telegram", "123456");

    private FakeBotApi api;
    private final List<Long> sleeps = new CopyOnWriteArrayList<>();
    private final List<Event> events = new CopyOnWriteArrayList<>();
    private final List<TelegramAdapter> started = new CopyOnWriteArrayList<>();
    /** Lets a handler that hangs return. */
    private final CountDownLatch release = new CountDownLatch(1);

    @BeforeEach
    void startApi() throws Exception {
        api = new FakeBotApi();
    }

    @AfterEach
    void stop() throws Exception {
        release.countDown();
        for (TelegramAdapter a : started) {
            a.stop();
        }
        api.close();
    }

    private TelegramAdapter adapter(String url, Kv kv, boolean start) {
        TelegramAdapter a = TelegramAdapter.create(TelegramSettings.polling(url, FakeBotApi.TOKEN)
                .withPollTimeoutSeconds(1), kv, null, millis -> {
                    sleeps.add(millis);
                    Thread.sleep(Math.min(millis, 1000));
                });
        if (start) {
            a.start(e -> {
                events.add(e);
                return InboundResult.PUBLISHED;
            });
            started.add(a);
        }
        return a;
    }

    private static String text(long updateId, String text) {
        return """
                {"update_id": %d, "message": {"message_id": %d, "date": 1441645532,
                 "from": {"id": 1111111, "is_bot": false, "first_name": "Test Firstname", "username": "Testusername"},
                 "chat": {"id": 1111111, "type": "private", "first_name": "Test Firstname"}, "text": "%s"}}
                """.formatted(updateId, updateId + 100, text);
    }

    /** A private message from user (and chat) {@code user}. */
    private static String textFrom(long updateId, long user, String text) {
        return """
                {"update_id": %d, "message": {"message_id": %d, "date": 1441645532,
                 "from": {"id": %d, "is_bot": false, "first_name": "Someone"},
                 "chat": {"id": %d, "type": "private", "first_name": "Someone"}, "text": "%s"}}
                """.formatted(updateId, updateId + 100, user, user, text);
    }

    private List<String> ids() {
        return events.stream().map(Event::id).toList();
    }

    @Test
    void restartResumesAfterTheLastStoredUpdate() throws Exception {
        Kv kv = new MemoryKvStore().namespace(TelegramAdapter.KV_NAMESPACE);
        for (int i = 1; i <= 3; i++) {
            api.push(text(i, "m" + i));
        }
        TelegramAdapter first = adapter(api.url(), kv, true);
        assertThat(Await.until(WAIT, () -> events.size() == 3)).isTrue();
        first.stop();
        started.remove(first);
        assertThat(kv.get("update_id.123456")).isEqualTo("3");
        for (int i = 4; i <= 6; i++) {
            api.push(text(i, "m" + i));
        }
        int before = api.calls("getUpdates").size();
        adapter(api.url(), kv, true);
        assertThat(Await.until(WAIT, () -> events.size() >= 6)).isTrue();
        Thread.sleep(200); // a repeat would arrive now
        assertThat(ids()).containsExactly("tg:123456:1", "tg:123456:2", "tg:123456:3", "tg:123456:4",
                "tg:123456:5", "tg:123456:6");
        assertThat(api.calls("getUpdates").get(before).params().path("offset").asLong()).isEqualTo(4);
    }

    /** The lane of private chat {@code user}. */
    private static int laneOf(long user) {
        return Math.floorMod(ChatRef.privateChat("telegram", Long.toString(user)).hashCode(), TelegramAdapter.LANES);
    }

    /** A private chat after {@code user} on another lane ({@code same} false) or on the same. */
    private static long chatAfter(long user, boolean same) {
        long other = user + 1;
        while ((laneOf(other) == laneOf(user)) != same) {
            other++;
        }
        return other;
    }

    /**
     * An inbound that adds each event to {@code into}, {@code /hang} from {@code stuck} once {@link #release}
     * lets it return; its runs watched by {@code watch}, or never judged stalled when null.
     */
    private Inbound hangingOn(long stuck, List<Event> into, @Nullable HandlerWatch watch) {
        return new Inbound() {
            @Override
            public InboundResult accept(Event e) {
                if (e instanceof MessageEvent m && m.userId().equals(Long.toString(stuck))
                        && m.message().plainText().equals("/hang")) {
                    try {
                        release.await();
                    } catch (InterruptedException interrupted) {
                        Thread.currentThread().interrupt();
                    }
                }
                into.add(e);
                return InboundResult.PUBLISHED;
            }

            @Override
            public HandlerWatch handlerWatch() {
                return watch != null ? watch : Inbound.super.handlerWatch();
            }
        };
    }

    @Test
    void aHandlerThatDoesNotReturnHoldsUpItsOwnChatOnlyAndThePollerGoesOn() throws Exception {
        long stuck = 1111111;
        long other = chatAfter(stuck, false); // with no pipeline watching, a lane is the stuck chat's until it returns
        TelegramAdapter a = adapter(api.url(), new MemoryKvStore().namespace(TelegramAdapter.KV_NAMESPACE), false);
        a.start(hangingOn(stuck, events, null));
        started.add(a);
        api.push(textFrom(1, stuck, "/hang"));
        api.push(textFrom(2, other, "hi"));
        assertThat(Await.until(WAIT, () -> ids().contains("tg:123456:2"))).as("the other chat is handled").isTrue();
        api.push(textFrom(3, stuck, "after"));
        api.push(textFrom(4, other, "again"));
        assertThat(Await.until(WAIT, () -> ids().contains("tg:123456:4"))).as("the poller polls on").isTrue();
        assertThat(ids()).containsExactly("tg:123456:2", "tg:123456:4");

        release.countDown();
        assertThat(Await.until(WAIT, () -> events.size() == 4)).isTrue();
        assertThat(ids()).as("the stuck chat's own order").containsSubsequence("tg:123456:1", "tg:123456:3");
    }

    @Test
    void aKillWhileAHandlerRunsLosesNoUpdateNotYetHandled() throws Exception {
        Kv kv = new MemoryKvStore().namespace(TelegramAdapter.KV_NAMESPACE);
        long stuck = 1111111;
        long other = chatAfter(stuck, false);
        List<Event> firstRun = new CopyOnWriteArrayList<>();
        TelegramAdapter first = adapter(api.url(), kv, false);
        first.start(hangingOn(stuck, firstRun, null));
        started.add(first);
        api.push(textFrom(1, other, "before"));
        assertThat(Await.until(WAIT, () -> "1".equals(kv.get("update_id.123456")))).as("handled, stored").isTrue();
        api.push(textFrom(2, stuck, "/hang"));
        api.push(textFrom(3, other, "hi"));
        api.push(textFrom(4, stuck, "after"));
        api.push(textFrom(5, other, "again"));
        assertThat(Await.until(WAIT, () -> firstRun.size() == 3)).as("the other chat is handled").isTrue();
        int polls = api.calls("getUpdates").size();
        assertThat(Await.until(WAIT, () -> api.calls("getUpdates").size() > polls + 1)).as("it polls on").isTrue();
        List<FakeBotApi.Call> asked = api.calls("getUpdates");
        assertThat(asked.get(asked.size() - 1).params().path("offset").asLong())
                .as("it confirms no update from the one not handled on").isEqualTo(2);
        assertThat(kv.get("update_id.123456")).isEqualTo("1");

        first.abort(); // as a kill -9: /hang still runs, "after" waits behind it
        started.remove(first);
        int before = api.calls("getUpdates").size();
        adapter(api.url(), kv, true);
        assertThat(Await.until(WAIT, () -> ids().containsAll(List.of("tg:123456:2", "tg:123456:4"))))
                .as("the next run handles what the killed one had not: " + ids()).isTrue();
        assertThat(api.calls("getUpdates").get(before).params().path("offset").asLong()).isEqualTo(2);
        assertThat(ids()).containsSubsequence("tg:123456:2", "tg:123456:4").doesNotContain("tg:123456:1");
        assertThat(Await.until(WAIT, () -> "5".equals(kv.get("update_id.123456")))).isTrue();
    }

    @Test
    void aStalledHandlerIsGivenUpOnSoTheOffsetMovesPastItAndItsChat() throws Exception {
        long stuck = 1111111;
        long other = chatAfter(stuck, true); // its lane moves on once the handler has stalled
        Kv kv = new MemoryKvStore().namespace(TelegramAdapter.KV_NAMESPACE);
        try (EventBus bus = EventBus.create();
             MessagePipeline pipeline = MessagePipeline.builder(bus).stallAfter(Duration.ofMillis(300)).build()) {
            TelegramAdapter a = adapter(api.url(), kv, false);
            a.start(hangingOn(stuck, events, pipeline.handlerWatch()));
            started.add(a);
            api.push(textFrom(1, stuck, "/hang"));
            api.push(textFrom(2, stuck, "after")); // set aside behind /hang
            int others = 150; // more than one answer holds (100): while /hang pinned the offset, the rest would wait
            for (int i = 0; i < others; i++) {
                api.push(textFrom(3 + i, other, "m" + i));
            }
            assertThat(Await.until(WAIT, () -> events.size() == others)).as("the other chat: " + events.size()).isTrue();
            assertThat(Await.until(WAIT, () -> Integer.toString(2 + others).equals(kv.get("update_id.123456"))))
                    .as("the offset passes the stalled update and the one set aside behind it").isTrue();
            assertThat(ids()).doesNotContain("tg:123456:1", "tg:123456:2");

            release.countDown();
            assertThat(Await.until(WAIT, () -> events.size() == others + 2)).as("they still run, in order").isTrue();
            assertThat(ids()).containsSubsequence("tg:123456:1", "tg:123456:2");
            a.stop();
            started.remove(a);
        }
    }

    @Test
    void startsFromTheUpdateAfterTheOneStored() throws Exception {
        Kv kv = new MemoryKvStore().namespace(TelegramAdapter.KV_NAMESPACE);
        kv.set("update_id.123456", "2");
        for (int i = 1; i <= 4; i++) {
            api.push(text(i, "m" + i));
        }
        adapter(api.url(), kv, true);
        assertThat(Await.until(WAIT, () -> events.size() >= 2)).isTrue();
        assertThat(ids()).containsExactly("tg:123456:3", "tg:123456:4");
        assertThat(api.calls("deleteWebhook")).hasSize(1); // polling clears a webhook left from webhook mode
    }

    @Test
    void malformedUpdateIsCountedAndPollingGoesOn() throws Exception {
        Kv kv = new MemoryKvStore().namespace(TelegramAdapter.KV_NAMESPACE);
        api.push("{\"update_id\": 1, \"message\": {\"message_id\": 5, \"date\": 1441645532, \"text\": \"no chat\"}}");
        api.push(text(2, "fine"));
        TelegramAdapter a = adapter(api.url(), kv, true);
        assertThat(Await.until(WAIT, () -> !events.isEmpty())).isTrue();
        assertThat(ids()).containsExactly("tg:123456:2");
        assertThat(a.metrics.bad(TelegramMetrics.Bad.INVALID)).isEqualTo(1);
        assertThat(Await.until(WAIT, () -> "2".equals(kv.get("update_id.123456")))).isTrue();
    }

    @Test
    void unknownUpdateTypeIsKeptAsANoticeWithItsJson() throws Exception {
        api.push("""
                {"update_id": 9, "message_reaction": {"chat": {"id": -100, "type": "supergroup"}, "message_id": 3,
                 "date": 1700000000, "old_reaction": [], "new_reaction": [{"type": "emoji", "emoji": "👍"}]}}
                """);
        TelegramAdapter a = adapter(api.url(), new MemoryKvStore().namespace("t"), true);
        assertThat(Await.until(WAIT, () -> !events.isEmpty())).isTrue();
        NoticeEvent n = (NoticeEvent) events.get(0);
        assertThat(n.detailType()).isEqualTo("message_reaction");
        assertThat((String) n.fields().get("raw")).contains("\"new_reaction\"");
        // counted once its lane took it: the lane may hand it on before the poller counts it
        assertThat(Await.until(WAIT, () -> a.metrics.updates("other") == 1)).isTrue();
        assertThat(api.calls("getUpdates").get(0).params().path("allowed_updates").toString())
                .contains("chat_member", "message_reaction");
    }

    @Test
    void networkErrorsBackOffFromHalfASecondDoublingAndShowTheBotDown() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        TelegramAdapter a = adapter("http://127.0.0.1:" + closed, new MemoryKvStore().namespace("t"), true);
        assertThat(Await.until(WAIT, () -> sleeps.size() >= 3)).isTrue();
        assertThat(sleeps.get(0)).isBetween(250L, 500L);
        assertThat(sleeps.get(1)).isBetween(500L, 1000L);
        assertThat(sleeps.get(2)).isBetween(1000L, 2000L);
        assertThat(a.health()).containsExactly(java.util.Map.entry("telegram:123456", false));
        assertThat(a.metrics.calls("getMe", TelegramMetrics.Outcome.NETWORK)).isGreaterThanOrEqualTo(3);
    }

    @Test
    void rateLimitWaitsRetryAfterForThatChatOnly() throws Exception {
        TelegramAdapter a = adapter(api.url(), null, false);
        api.failNext("sendMessage", "10", 429, "Too Many Requests: retry after 1", 1);
        CompletableFuture<String> limited = a.send(new OutboundMessage(BOT, ChatRef.privateChat("telegram", "10"),
                Message.text("to ten"), null)).toCompletableFuture();
        Await.until(WAIT, () -> !api.calls("sendMessage").isEmpty());
        CompletableFuture<String> other = a.send(new OutboundMessage(BOT, ChatRef.group("telegram", "-20"),
                Message.text("to twenty"), null)).toCompletableFuture();
        assertThat(other.get(10, TimeUnit.SECONDS)).isNotEmpty();
        assertThat(limited.get(10, TimeUnit.SECONDS)).isNotEmpty();
        assertThat(sleeps).contains(1000L);
        List<FakeBotApi.Call> toTen = api.calls("sendMessage").stream()
                .filter(c -> c.params().path("chat_id").asText().equals("10")).toList();
        assertThat(toTen).hasSize(2);
        assertThat(toTen.get(1).nanos() - toTen.get(0).nanos()).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(900));
        FakeBotApi.Call toTwenty = api.calls("sendMessage").stream()
                .filter(c -> c.params().path("chat_id").asText().equals("-20")).findFirst().orElseThrow();
        assertThat(toTwenty.nanos()).isLessThan(toTen.get(1).nanos()); // not held behind chat 10's wait
    }

    @Test
    void serverErrorIsRetriedAfterABackoffDelay() throws Exception {
        TelegramAdapter a = adapter(api.url(), null, false);
        api.failNext("sendMessage", "", 502, "Bad Gateway", 0);
        String id = a.send(new OutboundMessage(BOT, ChatRef.privateChat("telegram", "10"), Message.text("hi"), "77"))
                .toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertThat(id).isNotEmpty();
        assertThat(sleeps).hasSize(1);
        assertThat(sleeps.get(0)).isBetween(250L, 500L);
        assertThat(api.calls("sendMessage").get(1).params().path("reply_parameters").path("message_id").asLong())
                .isEqualTo(77);
    }

    @Test
    void forbiddenFailsTheStageWithTelegramsDescription() throws Exception {
        TelegramAdapter a = adapter(api.url(), null, false);
        api.failNext("sendMessage", "", 403, "Forbidden: bot was kicked from the group chat", 0);
        CompletableFuture<String> sent = a.send(new OutboundMessage(BOT, ChatRef.group("telegram", "-5"),
                Message.text("hi"), null)).toCompletableFuture();
        assertThatThrownBy(() -> sent.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(TelegramApiException.class)
                .hasMessageContaining("Forbidden: bot was kicked from the group chat");
        assertThat(api.calls("sendMessage")).hasSize(1);
        assertThat(sleeps).isEmpty();
    }

    @Test
    void longTextGoesOutInPiecesOfAtMost4096WithTheReplyOnTheFirst() throws Exception {
        TelegramAdapter a = adapter(api.url(), null, false);
        String text = "word ".repeat(1000) + "\n" + "tail ".repeat(200);
        a.send(new OutboundMessage(BOT, ChatRef.privateChat("telegram", "10"), Message.text(text), "5"))
                .toCompletableFuture().get(10, TimeUnit.SECONDS);
        List<FakeBotApi.Call> sent = api.calls("sendMessage");
        assertThat(sent).hasSizeGreaterThan(1);
        assertThat(sent).allSatisfy(c -> assertThat(c.params().path("text").asText().length()).isLessThanOrEqualTo(4096));
        assertThat(sent.get(0).params().has("reply_parameters")).isTrue();
        assertThat(sent.get(1).params().has("reply_parameters")).isFalse();
        assertThat(String.join(" ", sent.stream().map(c -> c.params().path("text").asText()).toList())
                .replaceAll("\\s+", " ")).isEqualTo(text.strip().replaceAll("\\s+", " "));
    }

    @Test
    void imageSegmentGoesOutThroughSendPhotoByFileId() throws Exception {
        TelegramAdapter a = adapter(api.url(), null, false);
        a.send(new OutboundMessage(BOT, ChatRef.privateChat("telegram", "10"),
                Message.of(new dev.pulsebus.event.Segment.Image("AgACAgIAAxkBAAIB"),
                        new dev.pulsebus.event.Segment.Text("caption-ish")), null))
                .toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertThat(api.calls("sendPhoto")).singleElement()
                .satisfies(c -> assertThat(c.params().path("photo").asText()).isEqualTo("AgACAgIAAxkBAAIB"));
        assertThat(api.calls("sendMessage")).hasSize(1);
    }

    @Test
    void imageByUrlAndFileSegmentsGoOutThroughTheirOwnMethodsInOrder() throws Exception {
        TelegramAdapter a = adapter(api.url(), null, false);
        String first = a.send(new OutboundMessage(BOT, ChatRef.privateChat("telegram", "10"), Message.of(
                new dev.pulsebus.event.Segment.Text("here"),
                new dev.pulsebus.event.Segment.Image("https://example.com/cat.png"),
                new dev.pulsebus.event.Segment.Other("document", java.util.Map.of("file_id", "BQACAgIAAxkBAAIB",
                        "file_name", "a.pdf")),
                new dev.pulsebus.event.Segment.Other("sticker", java.util.Map.of("file_id", "CAACAgIAAxkBAAIC"))),
                "7")).toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertThat(api.calls.stream().map(FakeBotApi.Call::method).filter(m -> m.startsWith("send")).toList())
                .containsExactly("sendMessage", "sendPhoto", "sendDocument", "sendSticker");
        assertThat(api.calls("sendPhoto").get(0).params().path("photo").asText()).isEqualTo("https://example.com/cat.png");
        assertThat(api.calls("sendDocument").get(0).params().path("document").asText()).isEqualTo("BQACAgIAAxkBAAIB");
        assertThat(api.calls("sendSticker").get(0).params().path("sticker").asText()).isEqualTo("CAACAgIAAxkBAAIC");
        assertThat(api.calls("sendMessage").get(0).params().path("reply_parameters").path("message_id").asLong())
                .isEqualTo(7);
        assertThat(api.calls("sendSticker").get(0).params().has("reply_parameters")).isFalse();
        assertThat(first).isEqualTo("1001"); // the stage completes with the first message sent
    }

    @Test
    void badRequestFailsTheStageWithTelegramsDescriptionAtOnce() throws Exception {
        TelegramAdapter a = adapter(api.url(), null, false);
        api.failNext("sendMessage", "", 400, "Bad Request: chat not found", 0);
        CompletableFuture<String> sent = a.send(new OutboundMessage(BOT, ChatRef.privateChat("telegram", "404"),
                Message.text("hi"), null)).toCompletableFuture();
        assertThatThrownBy(() -> sent.get(10, TimeUnit.SECONDS)).cause().isInstanceOf(TelegramApiException.class)
                .satisfies(e -> {
                    assertThat(((TelegramApiException) e).errorCode()).isEqualTo(400);
                    assertThat(((TelegramApiException) e).description()).isEqualTo("Bad Request: chat not found");
                });
        assertThat(sleeps).isEmpty();
    }

    @Test
    void stopEndsAPollThatTelegramHoldsWithoutWaitingForItsTimeout() throws Exception {
        TelegramAdapter a = TelegramAdapter.create(TelegramSettings.polling(api.url(), FakeBotApi.TOKEN)
                .withPollTimeoutSeconds(40), null, null);
        a.start(e -> InboundResult.PUBLISHED);
        assertThat(Await.until(WAIT, () -> !api.calls("getUpdates").isEmpty())).isTrue();
        assertTimeoutPreemptively(Duration.ofSeconds(20), a::stop); // the poll is held for 40 s
        assertThat(a.health()).containsEntry("telegram:123456", true);
    }
}
