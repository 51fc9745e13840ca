package dev.pulsebus.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pulsebus.command.Command;
import dev.pulsebus.config.ConfigException;
import dev.pulsebus.event.ChatRef;
import dev.pulsebus.event.Message;
import dev.pulsebus.module.BotModule;
import dev.pulsebus.module.ModuleContext;
import dev.pulsebus.pipeline.InMemoryAdapter;
import dev.pulsebus.pipeline.OutboundMessage;
import dev.pulsebus.storage.Storage;
import dev.pulsebus.testing.Await;
import dev.pulsebus.transcript.TranscriptRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A bot without the HTTP server, on a real SQLite file, with a platform found through the SPI. */
class PulseBusTest {

    @TempDir
    Path dir;

    /** A module written as a bot author would: {@code /echo}. */
    static final class Echo implements BotModule {
        @Override
        public String name() {
            return "echo-test";
        }

        @Override
        public String version() {
            return "1";
        }

        @Override
        public void onLoad(ModuleContext ctx) {
            ctx.commands().register(Command.named("echo").handler(call -> call.reply(call.rest())));
        }
    }

    @BeforeEach
    void clear() {
        TestChatProvider.MADE.clear();
    }

    private Path config(String toml) throws Exception {
        Path file = dir.resolve("pulsebus.toml");
        Files.writeString(file, "[storage]\ndata_dir = \"" + dir.resolve("data").toString().replace("\\", "\\\\")
                + "\"\n" + toml);
        return file;
    }

    @Test
    void aBotFromItsFileAnswersOnItsPlatformAndKeepsItsTranscriptAfterClose() throws Exception {
        RuntimeSettings settings = RuntimeSettings.load(config("[adapters.testchat]\nbot = \"b1\"\n"), Map.of());
        InMemoryAdapter chat;
        try (PulseBus bot = PulseBus.builder().settings(settings).module(new Echo()).start()) {
            assertThat(TestChatProvider.MADE).hasSize(1);
            chat = TestChatProvider.MADE.get(0);
            assertThat(bot.adapters(InMemoryAdapter.class)).containsExactly(chat);
            assertThat(bot.platforms()).containsOnlyKeys("testchat");
            assertThat(bot.platforms().get("testchat").health()).containsEntry("testchat:b1", true);
            chat.inject(chat.groupMessage("g1", "ann", Message.text("/echo hello there")));
            Await.until(Duration.ofSeconds(10), () -> !chat.sent().isEmpty());
            OutboundMessage reply = chat.sent().get(0);
            assertThat(reply.message().plainText()).isEqualTo("hello there");
            assertThat(reply.chat()).isEqualTo(ChatRef.group("testchat", "g1"));
        }
        // closed in order: the transcript (the message and the reply) reached the SQLite file
        try (Storage storage = Storage.builder().dataDir(dir.resolve("data")).open()) {
            List<TranscriptRecord> records = storage.transcripts().last(ChatRef.group("testchat", "g1"), 10, Long.MAX_VALUE);
            assertThat(records).extracting(r -> r.message().plainText())
                    .containsExactlyInAnyOrder("/echo hello there", "hello there");
        }
    }

    @Test
    void aPlatformThatNeedsTheServerFailsTheStartNamingItsSectionAndClosesWhatWasOpened() throws Exception {
        RuntimeSettings settings = RuntimeSettings.load(config("[adapters.testchat]\nmount = true\n"), Map.of());
        PulseBus.Builder builder = PulseBus.builder().settings(settings);
        assertThatThrownBy(builder::start).isInstanceOf(ConfigException.class)
                .hasMessageContaining("adapters.testchat").hasMessageContaining("needs the HTTP server");
        // storage was closed: the SQLite file opens again at once
        try (Storage storage = Storage.builder().dataDir(dir.resolve("data")).open()) {
            assertThat(storage.healthy()).isTrue();
        }
    }

    @Test
    void settingsErrorsNameTheFileAndLineAndASectionOfTheServerIsRefused() throws Exception {
        Path file = config("[server]\nport = 8080\n[bus]\nstall_ms = -1\n[adapters.nochat]\nx = 1\n");
        assertThatThrownBy(() -> RuntimeSettings.load(file, Map.of())).isInstanceOf(ConfigException.class)
                .hasMessageContaining("3 configuration errors")
                .hasMessageContaining("unknown section [server] for a bot without the HTTP server")
                .hasMessageContaining(file + ", line 6: bus.stall_ms must be between 0 and 3600000, was -1")
                .hasMessageContaining("unknown section [adapters.nochat]; known: adapters.testchat");
        assertThatThrownBy(() -> RuntimeSettings.load(config("[adapters.testchat]\nbot = \" \"\n"), Map.of()))
                .isInstanceOf(ConfigException.class).hasMessageContaining("adapters.testchat.bot is empty");
    }

    @Test
    void sectionsAreRecordsWithBuilders() {
        RuntimeSettings s = RuntimeSettings.builder()
                .storage(StorageSettings.builder().dataDir(dir).cacheSize(5).build())
                .bus(BusSettings.DEFAULTS.toBuilder().stallMs(0).build()).build();
        assertThat(s.storage().dataDir()).isEqualTo(dir);
        assertThat(s.storage().cacheSize()).isEqualTo(5);
        assertThat(s.storage().synchronous()).isEqualTo("NORMAL");
        assertThat(s.bus().stallMs()).isZero();
        assertThat(s.bus().slowHandlerMs()).isEqualTo(1000);
        assertThat(StorageSettings.builder().password(dev.pulsebus.config.Secret.of("hunter2")).build().toString())
                .doesNotContain("hunter2");
    }
}
