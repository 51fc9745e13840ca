package dev.pulsebus.telegram;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulsebus.event.PrivateMessage;
import dev.pulsebus.server.PulseBusServer;
import dev.pulsebus.testing.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two bots polling at once in the real server ({@code token} a TOML array), against {@link FakeBotApi}: each
 * takes its own updates as its own {@code Self}, answers its own chat through its own token, confirms its
 * own offset, and a command addressed to the other bot is left alone.
 */
class TelegramTwoBotsTest {

    private static final Duration WAIT = Duration.ofSeconds(15);

    @TempDir
    Path dir;

    private static String command(long updateId, long chat, String text) {
        int end = text.indexOf(' ') < 0 ? text.length() : text.indexOf(' ');
        return """
                {"update_id": %d, "message": {"message_id": %d, "date": 1441645532,
                 "from": {"id": %d, "is_bot": false, "first_name": "User"},
                 "chat": {"id": %d, "type": "private", "first_name": "User"}, "text": "%s",
                 "entities": [{"type": "bot_command", "offset": 0, "length": %d}]}}
                """.formatted(updateId, updateId + 100, chat, chat, text, end);
    }

    @Test
    void eachBotAnswersItsOwnChatAsItsOwnSelf() throws Exception {
        try (FakeBotApi api = new FakeBotApi(); PulseBusServer server = TelegramServers.start(dir, """
                mode = "polling"
                token = ["%s", "%s"]
                api_url = "%s"
                """.formatted(FakeBotApi.TOKEN, FakeBotApi.TOKEN2, api.url()))) {
            List<PrivateMessage> seen = new CopyOnWriteArrayList<>();
            server.bus().subscribe(PrivateMessage.class, seen::add);
            assertThat(server.adapters(TelegramAdapter.class).get(0).botIds()).containsExactly("123456", "654321");
            assertThat(Await.until(WAIT, () -> api.calls(FakeBotApi.TOKEN, "getUpdates").size() >= 1
                    && api.calls(FakeBotApi.TOKEN2, "getUpdates").size() >= 1)).isTrue(); // both poll at once

            api.push(FakeBotApi.TOKEN, command(1, 1111, "/echo@" + FakeBotApi.USERNAME + " from one"));
            api.push(FakeBotApi.TOKEN2, command(1, 2222, "/echo from two"));
            api.push(FakeBotApi.TOKEN2, command(2, 2222, "/echo@" + FakeBotApi.USERNAME + " not for two"));
            api.push(FakeBotApi.TOKEN, command(2, 1111, "hello one").replace("\"bot_command\"", "\"bold\""));
            api.push(FakeBotApi.TOKEN2, command(3, 2222, "hello two").replace("\"bot_command\"", "\"bold\""));

            assertThat(Await.until(WAIT, () -> api.calls(FakeBotApi.TOKEN, "sendMessage").size() == 1
                    && api.calls(FakeBotApi.TOKEN2, "sendMessage").size() == 1 && seen.size() >= 3)).isTrue();
            FakeBotApi.Call one = api.calls(FakeBotApi.TOKEN, "sendMessage").get(0);
            assertThat(one.params().path("chat_id").asText()).isEqualTo("1111");
            assertThat(one.params().path("text").asText()).isEqualTo("from one");
            FakeBotApi.Call two = api.calls(FakeBotApi.TOKEN2, "sendMessage").get(0);
            assertThat(two.params().path("chat_id").asText()).isEqualTo("2222");
            assertThat(two.params().path("text").asText()).isEqualTo("from two");

            // what no command took is published: each bot's own, as its own Self
            assertThat(seen).extracting(e -> e.id() + " " + e.self().userId() + " " + e.message().plainText())
                    .containsExactlyInAnyOrder("tg:123456:2 123456 hello one", "tg:654321:3 654321 hello two",
                            "tg:654321:2 654321 [bot_command] not for two"); // for the other bot: no command here
            assertThat(Await.until(WAIT, () -> "3".equals(server.storage().kv().namespace("telegram")
                    .get("update_id.654321")) && "2".equals(server.storage().kv().namespace("telegram")
                    .get("update_id.123456")))).isTrue();
            Thread.sleep(300); // room for a wrong answer to "/echo@pulse_test_bot" sent to bot two; none may come
            assertThat(api.calls(FakeBotApi.TOKEN2, "sendMessage")).hasSize(1);
            assertThat(server.adapters(TelegramAdapter.class).get(0).health()).isEqualTo(Map.of("telegram:123456", true, "telegram:654321", true));
        }
    }
}
