package dev.pulsebus.telegram;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pulsebus.event.Event;
import dev.pulsebus.event.MessageEvent;
import dev.pulsebus.event.NoticeEvent;
import dev.pulsebus.pipeline.InboundResult;
import dev.pulsebus.server.PulseBusServer;
import dev.pulsebus.testing.Await;
import dev.pulsebus.testing.MemoryKvStore;
import dev.pulsebus.kv.Kv;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The adapter against telegram-test-api, a Bot API emulator run by Node.js; skipped without it. */
class TelegramEmulatorTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path dir;
    private TelegramEmulator emulator;

    @BeforeEach
    void startEmulator() throws Exception {
        emulator = TelegramEmulator.start();
    }

    @AfterEach
    void stopEmulator() throws Exception {
        if (emulator != null) {
            emulator.close();
        }
    }

    private PulseBusServer server() throws Exception {
        return TelegramServers.start(dir, """
                mode = "polling"
                token = "%s"
                api_url = "%s"
                """.formatted(TelegramEmulator.TOKEN, emulator.apiUrl));
    }

    /** Waits until the bot has sent {@code chatId} a message, and returns what it sent there by then. */
    private List<JsonNode> botMessages(long chatId, int atLeast) throws Exception {
        List<JsonNode> seen = new ArrayList<>();
        Await.until(WAIT, Duration.ofMillis(50), () -> {
            for (JsonNode m : emulator.botMessages(chatId)) {
                seen.add(m.path("message"));
            }
            return seen.size() >= atLeast;
        });
        return seen;
    }

    @Test
    void commandInPrivateChatIsAnsweredAsAReply() throws Exception {
        try (PulseBusServer server = server()) {
            emulator.say(41, 41, "private", "/echo hello there");
            List<JsonNode> sent = botMessages(41, 1);
            assertThat(sent).hasSize(1);
            assertThat(sent.get(0).path("text").asText()).isEqualTo("hello there");
            assertThat(sent.get(0).path("reply_parameters").path("message_id").asLong()).isPositive();
            assertThat(server.adapters(TelegramAdapter.class).get(0).health()).containsEntry("telegram:666", true);
        }
    }

    @Test
    void commandInGroupForThisBotIsAnsweredAndOneForAnotherBotIsNot() throws Exception {
        try (PulseBusServer server = server()) {
            emulator.say(7, -1001, "group", "/echo@OtherBot not for us");
            emulator.say(7, -1001, "group", "/echo@TestNameBot for us");
            List<JsonNode> sent = botMessages(-1001, 1);
            Thread.sleep(300); // room for a wrong second answer to arrive; its absence is what is asserted
            sent.addAll(botMessages(-1001, 0));
            assertThat(sent).extracting(m -> m.path("text").asText()).containsExactly("for us");
            assertThat(sent.get(0).path("chat_id").asText()).isEqualTo("-1001");
        }
    }

    @Test
    void twoBotsAtOnceEachAnswerTheirOwnChat() throws Exception {
        String second = "777:second-emulated-token";
        try (PulseBusServer server = TelegramServers.start(dir, """
                mode = "polling"
                token = ["%s", "%s"]
                api_url = "%s"
                """.formatted(TelegramEmulator.TOKEN, second, emulator.apiUrl))) {
            emulator.say(TelegramEmulator.TOKEN, 41, 41, "private", "/echo to the first");
            emulator.say(second, 42, 42, "private", "/echo to the second");
            List<JsonNode> first = new ArrayList<>();
            List<JsonNode> other = new ArrayList<>();
            Await.until(WAIT, Duration.ofMillis(50), () -> {
                emulator.botMessages(TelegramEmulator.TOKEN, 41).forEach(m -> first.add(m.path("message")));
                emulator.botMessages(second, 42).forEach(m -> other.add(m.path("message")));
                return !first.isEmpty() && !other.isEmpty();
            });
            assertThat(first).extracting(m -> m.path("text").asText()).containsExactly("to the first");
            assertThat(other).extracting(m -> m.path("text").asText()).containsExactly("to the second");
            assertThat(server.adapters(TelegramAdapter.class).get(0).health()).containsEntry("telegram:666", true).containsEntry("telegram:777", true);
        }
    }

    @Test
    void restartInTheMiddleOfABurstLosesAndRepeatsNoUpdate() throws Exception {
        Kv kv = new MemoryKvStore().namespace(TelegramAdapter.KV_NAMESPACE);
        List<String> texts = new CopyOnWriteArrayList<>();
        TelegramSettings settings = TelegramSettings.polling(emulator.apiUrl, TelegramEmulator.TOKEN)
                .withPollTimeoutSeconds(1);
        for (int i = 0; i < 20; i++) {
            emulator.say(5, 5, "private", "m" + i);
        }
        TelegramAdapter first = TelegramAdapter.create(settings, kv, null);
        first.start(e -> collect(e, texts));
        for (int i = 20; i < 40; i++) {
            emulator.say(5, 5, "private", "m" + i);
        }
        assertThat(Await.until(WAIT, () -> texts.size() >= 25)).isTrue();
        first.stop();
        for (int i = 40; i < 60; i++) {
            emulator.say(5, 5, "private", "m" + i);
        }
        TelegramAdapter second = TelegramAdapter.create(settings, kv, null);
        second.start(e -> collect(e, texts));
        try {
            assertThat(Await.until(WAIT, () -> texts.size() >= 60)).isTrue();
            Thread.sleep(300); // a repeat would arrive now
        } finally {
            second.stop();
        }
        assertThat(texts).hasSize(60);
        assertThat(new HashSet<>(texts)).hasSize(60);
        assertThat(kv.get("update_id.666")).isNotNull();
    }

    @Test
    void callbackQueryBecomesANoticeWithItsData() throws Exception {
        List<Event> events = new CopyOnWriteArrayList<>();
        TelegramAdapter adapter = TelegramAdapter.create(TelegramSettings.polling(emulator.apiUrl,
                TelegramEmulator.TOKEN).withPollTimeoutSeconds(1), null, null);
        adapter.start(e -> {
            events.add(e);
            return InboundResult.PUBLISHED;
        });
        try {
            emulator.press(9, 9, "vote:yes");
            assertThat(Await.until(WAIT, () -> !events.isEmpty())).isTrue();
        } finally {
            adapter.stop();
        }
        NoticeEvent n = (NoticeEvent) events.get(0);
        assertThat(n.detailType()).isEqualTo("callback_query");
        assertThat(n.fields()).containsEntry("data", "vote:yes");
        assertThat(n.id()).startsWith("tg:666:");
    }

    private static InboundResult collect(Event e, List<String> texts) {
        if (e instanceof MessageEvent m) {
            texts.add(m.message().plainText());
        }
        return InboundResult.PUBLISHED;
    }
}
