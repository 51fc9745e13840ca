package dev.pulsebus.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pulsebus.command.Command;
import dev.pulsebus.config.Config;
import dev.pulsebus.config.ConfigException;
import dev.pulsebus.module.BotModule;
import dev.pulsebus.module.ModuleContext;
import dev.pulsebus.testing.Await;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Configuration edits while a real server runs: a module's setting changes its next answer, a setting read
 * at start is listed as pending, a bad edit is kept out with its line named; errors name their source.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LiveConfigTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    /** Answers /greet with its greeting setting, read when used. */
    static final class Greeter implements BotModule {
        @Override
        public String name() {
            return "greeter";
        }

        @Override
        public void onLoad(ModuleContext ctx) {
            ctx.commands().register(Command.named("greet").handler(call ->
                    call.reply(ctx.settings().getOrDefault("greeting", "Hello") + ", " + call.source().userId() + "!")));
        }
    }

    private static void edit(Path file, String from, String to) throws Exception {
        String text = Files.readString(file);
        assertThat(text).contains(from);
        Files.writeString(file, text.replace(from, to));
    }

    /** Says /greet as {@code user} until the room shows {@code answer}. */
    private static boolean answers(TestServer t, String user, String answer) throws Exception {
        return Await.until(Duration.ofSeconds(20), Duration.ofMillis(200), () -> {
            t.say("lobby", user, "/greet");
            return t.get("/api/rooms/lobby/messages").body().contains(answer);
        });
    }

    @Test
    void aModuleSettingChangesTheNextAnswerWithoutAReload() throws Exception {
        try (TestServer t = new TestServer(dir, "\n[modules.greeter]\ngreeting = \"Hi\"\n")) {
            t.server.modules().load(new Greeter());
            assertThat(answers(t, "ann", "Hi, ann!")).isTrue();
            edit(dir.resolve("pulsebus.toml"), "greeting = \"Hi\"", "greeting = \"Howdy\"");
            assertThat(answers(t, "bob", "Howdy, bob!")).as("the edit changes the next answer").isTrue();
            assertThat(json(t.get("/api/admin/stats").body()).get("pending")).isEmpty();
        }
    }

    @Test
    void aSettingReadAtStartIsPendingAndABadEditIsKeptOutWithItsLine() throws Exception {
        Logger log = (Logger) LoggerFactory.getLogger(Config.class);
        ListAppender<ILoggingEvent> errors = new ListAppender<>();
        errors.start();
        log.addAppender(errors);
        Path file = dir.resolve("pulsebus.toml");
        try (TestServer t = new TestServer(dir, "max_body_bytes = 65536\n\n[modules.greeter]\ngreeting = \"Hi\"\n")) {
            t.server.modules().load(new Greeter());
            edit(file, "max_body_bytes = 65536", "max_body_bytes = 1024");
            assertThat(Await.until(Duration.ofSeconds(20), () -> json(t.get("/api/admin/stats").body())
                    .get("pending").toString().contains("server.max_body_bytes"))).isTrue();
            JsonNode pending = json(t.get("/api/admin/stats").body()).get("pending");
            assertThat(pending).hasSize(1);
            assertThat(pending.get(0).get("key").asText()).isEqualTo("server.max_body_bytes");
            assertThat(pending.get(0).get("applies").asText()).isEqualTo("after a restart");

            // lines 4 and 5 of the file: a typo'd key and a bad value, with a greeting edit that must not go in
            edit(file, "max_body_bytes = 1024\n", "max_body_bytes = 1024\nmax_conections = 5\nmax_connections = \"lots\"\n");
            edit(file, "greeting = \"Hi\"", "greeting = \"Bad\"");
            assertThat(Await.until(Duration.ofSeconds(20), () -> errors.list.stream().anyMatch(e ->
                    e.getLevel() == Level.ERROR && e.getFormattedMessage().contains(file + ", line 5: server.max_connections")))).isTrue();
            String rejected = errors.list.stream().filter(e -> e.getLevel() == Level.ERROR)
                    .map(ILoggingEvent::getFormattedMessage).filter(m -> m.contains("max_connections")).findFirst().orElseThrow();
            assertThat(rejected).contains("rejected").contains(file + ", line 4: unknown setting server.max_conections")
                    .contains("server.max_connections must be an integer, was \"lots\"");
            assertThat(answers(t, "ann", "Hi, ann!")).as("the running snapshot is kept").isTrue();
            assertThat(t.get("/api/rooms/lobby/messages").body()).doesNotContain("Bad, ");

            edit(file, "max_conections = 5\nmax_connections = \"lots\"\n", ""); // fixed: the greeting edit goes in
            assertThat(answers(t, "bob", "Bad, bob!")).isTrue();
        } finally {
            log.detachAppender(errors);
        }
    }

    @Test
    void anEnvironmentValueNamesItsVariableAndEveryErrorIsListed() throws Exception {
        Path file = Files.writeString(dir.resolve("pulsebus.toml"), "[server]\nport = 8080\nmax_connections = 0\n");
        assertThatThrownBy(() -> ServerConfig.load(file, false, Map.of("PULSEBUS_SERVER_PORT", "abc",
                "PULSEBUS_SERVER_PROT", "1")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("3 configuration errors")
                .hasMessageContaining("environment variable PULSEBUS_SERVER_PORT: server.port must be an integer, was \"abc\"")
                .hasMessageContaining("environment variable PULSEBUS_SERVER_PROT names no setting")
                .hasMessageContaining(file + ", line 3: server.max_connections must be between 1 and");
    }

    @Test
    void aConfigurationErrorPrintsNoUsageText() throws Exception {
        Path file = Files.writeString(dir.resolve("bad.toml"), "[server]\nport = \"x\"\n");
        PrintStream err = System.err;
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        System.setErr(new PrintStream(printed, true, StandardCharsets.UTF_8));
        try {
            assertThat(ServerMain.run(new String[] {"--config", file.toString()})).isEqualTo(2);
        } finally {
            System.setErr(err);
        }
        assertThat(printed.toString(StandardCharsets.UTF_8)).contains(file + ", line 2: server.port must be an integer")
                .doesNotContain("usage:");
    }

    private static JsonNode json(String body) throws Exception {
        return JSON.readTree(body);
    }
}
