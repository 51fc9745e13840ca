package dev.pulsebus.example;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulsebus.runtime.PulseBus;
import dev.pulsebus.telegram.TelegramAdapter;
import dev.pulsebus.testing.Await;
import dev.pulsebus.testing.DocExamples;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/EMBEDDING.md's bot without the HTTP server, shown verbatim: it polls a Bot API (a stand-in speaking the API's
 * shapes), answers {@code /echo hi}, and needs no web server on its class path.
 */
class PollingBotExampleTest {

    @TempDir
    Path dir;

    @Test
    void theReadmeShowsTheCompiledExample() throws Exception {
        DocExamples.assertShown(Path.of("src", "test", "java", "dev", "pulsebus", "example", "PollingBotExample.java"),
                "docs/EMBEDDING.md");
    }

    @Test
    void thePollingBotAnswersThroughTheBotApiWithoutAWebServer() throws Exception {
        assertThat(Class.forName("io.netty.buffer.ByteBuf")).isNotNull(); // the JSON reader's buffers, no more
        for (String server : new String[] {"io.netty.handler.codec.http.HttpServerCodec",
                "io.netty.channel.Channel", "dev.pulsebus.server.PulseBusServer"}) {
            assertThat(classExists(server)).as(server).isFalse();
        }
        try (FakeBotApi api = new FakeBotApi()) {
            Path file = dir.resolve("pulsebus.toml");
            Files.writeString(file, "[storage]\ndata_dir = \"" + dir.resolve("data").toString().replace("\\", "\\\\")
                    + "\"\n[adapters.telegram]\ntoken = \"" + FakeBotApi.TOKEN + "\"\napi_url = \"" + api.url() + "\"\n");
            try (PulseBus bot = PollingBotExample.start(file)) {
                assertThat(bot.adapters(TelegramAdapter.class)).hasSize(1);
                assertThat(Await.until(Duration.ofSeconds(20), () -> !api.sent.isEmpty())).isTrue();
                assertThat(api.sent.get(0)).contains("\"chat_id\":\"42\"").contains("\"text\":\"hi\"");
            }
        }
    }

    private static boolean classExists(String name) {
        try {
            Class.forName(name, false, PollingBotExampleTest.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }
}
