package dev.pulsebus.example;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulsebus.bus.EventBus;
import dev.pulsebus.command.CommandRouter;
import dev.pulsebus.event.ChatRef;
import dev.pulsebus.module.ModuleHost;
import dev.pulsebus.pipeline.InMemoryAdapter;
import dev.pulsebus.pipeline.MessagePipeline;
import dev.pulsebus.testing.Await;
import dev.pulsebus.testing.DocExamples;
import dev.pulsebus.testing.FakeClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The documentation's examples are this package's classes, compiled by the build: the README shows
 * {@link EmbeddingExample}, {@code docs/COMMANDS.md} {@link CommandExample}, {@code docs/MODULES.md}
 * {@link ModuleExample}, {@code docs/CONVERSATIONS.md} {@link MorningPostModule} and {@code docs/PIPELINE.md}
 * {@link PipelineExampleTest} (a test of its own), each verbatim (from its first import on), and they must run as
 * the pages say. docs/EMBEDDING.md's pom is the one {@code consumer-check} builds.
 */
class ReadmeExampleTest {

    private static final Path SOURCES = Path.of("src", "test", "java", "dev", "pulsebus", "example");

    @ParameterizedTest
    @CsvSource({"EmbeddingExample.java, README.md", "CommandExample.java, docs/COMMANDS.md",
            "ModuleExample.java, docs/MODULES.md", "MorningPostModule.java, docs/CONVERSATIONS.md",
            "PipelineExampleTest.java, docs/PIPELINE.md"})
    void documentationShowsTheCompiledExampleVerbatim(String file, String page) throws IOException {
        DocExamples.assertShown(SOURCES.resolve(file), page);
    }

    @Test
    void embeddingPageShowsThePomTheConsumerCheckBuilds() throws IOException {
        String pom = Files.readString(Path.of("../consumer-check/src/it/embedding/pom.xml"));
        String root = Files.readString(Path.of("../pom.xml"));
        // invoker fills @name@ from the build's properties; the page shows the values
        String filled = Pattern.compile("@([\\w.-]+)@").matcher(pom).replaceAll(m -> Matcher.quoteReplacement(
                m.group(1).equals("project.version") ? element(root, "version") : element(root, m.group(1))));

        assertThat(Files.readString(Path.of("../docs/EMBEDDING.md"))).contains("```xml\n" + filled.strip() + "\n```");
    }

    private static String element(String xml, String name) {
        Matcher m = Pattern.compile("<" + Pattern.quote(name) + ">([^<]+)</" + Pattern.quote(name) + ">").matcher(xml);
        assertThat(m.find()).as("<%s> in the root pom", name).isTrue();
        return m.group(1);
    }

    @Test
    void morningPostModulePostsAsTheConversationsPageSays() throws Exception {
        FakeClock clock = new FakeClock(Instant.parse("2026-12-01T08:59:00Z"), ZoneOffset.UTC);
        InMemoryAdapter http = new InMemoryAdapter("http", "bot");
        CommandRouter router = CommandRouter.builder().build();
        try (EventBus bus = EventBus.create();
             MessagePipeline pipeline = MessagePipeline.builder(bus).commands(router).adapter(http).build().start();
             ModuleHost modules = ModuleHost.builder(bus, router).pipeline(pipeline).clock(clock)
                     .clockRecheck(Duration.ofMillis(5)).settings(name -> Map.of("room", "general")).build()) {
            modules.load(new MorningPostModule());
            assertThat(Await.until(Duration.ofMillis(100), () -> !http.sent().isEmpty())).as("before 9:00").isFalse();

            clock.advance(Duration.ofMinutes(1));

            assertThat(Await.until(Duration.ofSeconds(10), () -> !http.sent().isEmpty())).as("at 9:00").isTrue();
            assertThat(http.sent()).singleElement().satisfies(sent -> {
                assertThat(sent.chat()).isEqualTo(ChatRef.group("http", "general"));
                assertThat(sent.message().plainText()).isEqualTo("Good morning!");
            });
        }
    }

    @Test
    void embeddingExampleRunsAsTheReadmeSays() throws Exception {
        assertThat(DocExamples.printed(EmbeddingExample::main)).containsExactlyInAnyOrder("ann says hello",
                "stored: hello", "nobody handled: a string no one subscribed to");
    }

    @Test
    void commandExampleRunsAsTheReadmeSays() throws Exception {
        assertThat(DocExamples.printed(CommandExample::main)).containsExactly(
                "bot> Sunny in Tokyo",
                "/weather Tokyo -> OK",
                "bot> Slow down: try /weather again in 10 s.",
                "!W Paris -> COOLDOWN",
                "bot> argument 1: expected a number, got 'abc'. Usage: /roll <sides>",
                "/roll abc -> BAD_ARGS",
                "hello there -> NOT_COMMAND");
    }

    @Test
    void moduleExampleRunsAsTheReadmeSays() throws Exception {
        assertThat(DocExamples.printed(ModuleExample::main)).containsExactly("loaded weather", "loaded greeter",
                "Hello ann! Sunny in Tokyo", "still loaded: [weather]");
    }
}
