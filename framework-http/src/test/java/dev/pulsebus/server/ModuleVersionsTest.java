package dev.pulsebus.server;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import com.fasterxml.jackson.databind.JsonNode;
import dev.pulsebus.internal.Json;
import dev.pulsebus.module.Modules;
import dev.pulsebus.testing.LogCapture;
import dev.pulsebus.testing.ModuleJars;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** One version of a module runs, and a restart runs the one that ran before it: real jars, a real server. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ModuleVersionsTest {

    @RegisterExtension
    final LogCapture modulesLog = new LogCapture(Modules.class, Level.INFO);
    @RegisterExtension
    final LogCapture adminLog = new LogCapture(AdminApi.class, Level.INFO);

    @TempDir
    Path dir;

    /** {@code modules/dice-<version>.jar}: module "dice" at {@code version}, whose route {@code /v} says it. */
    private Path dice(String version) throws IOException {
        return dice(version, "dice-" + version);
    }

    /** The same, in {@code modules/<file>.jar}. */
    private Path dice(String version, String file) throws IOException {
        Path built = ModuleJars.build(Files.createDirectories(dir.resolve("build")), file, "dice",
                "Dice", "Dice.java", """
                        package dice;

                        public final class Dice implements dev.pulsebus.module.BotModule {
                            public String name() { return "dice"; }
                            public String version() { return "%s"; }
                            public void onLoad(dev.pulsebus.module.ModuleContext ctx) {
                                ctx.route("GET", "/v", req -> dev.pulsebus.module.HttpRoute.Reply.text(200, "%s"));
                            }
                        }
                        """.formatted(version, version));
        return Files.copy(built, Files.createDirectories(dir.resolve("modules")).resolve(built.getFileName()));
    }

    private TestServer server(String name) throws Exception {
        return ConsoleApiTest.serverWithModules(Files.createDirectories(dir.resolve(name)), "", dir.resolve("modules"));
    }

    private static JsonNode dice(TestServer t) throws Exception {
        for (JsonNode m : Json.MAPPER.readTree(t.get("/api/admin/modules").body()).get("modules")) {
            if (m.get("name").asText().equals("dice")) {
                return m;
            }
        }
        throw new AssertionError("dice is not loaded");
    }

    @Test
    void theHighestVersionInTheFolderStartsAndTheOtherIsLoggedOnceAsSuperseded() throws Exception {
        dice("1.0");
        dice("1.1");
        try (TestServer t = server("server")) {
            assertThat(dice(t).get("version").asText()).isEqualTo("1.1");
            assertThat(dice(t).get("jar").asText()).isEqualTo("dice-1.1.jar");
            assertThat(t.get("/modules/dice/v").body()).isEqualTo("1.1");
            assertThat(t.get("/api/admin/errors").body()).as("no 'loaded already'").doesNotContain("dice");
        }
        assertThat(modulesLog.lines()).filteredOn(l -> l.contains("dice-1.0.jar")).singleElement().asString()
                .contains("superseded", "dice 1.1 in dice-1.1.jar");
    }

    @Test
    void version1Point10BeatsVersion1Point9WhateverTheFileNames() throws Exception {
        dice("1.9", "a-dice"); // first by name, and by text
        dice("1.10", "b-dice");
        try (TestServer t = server("server")) {
            assertThat(t.get("/modules/dice/v").body()).isEqualTo("1.10");
        }
    }

    @Test
    void aReloadToANewJarMovesTheOldOneAsideAndARestartRunsTheNewOne() throws Exception {
        Path old = dice("1.0");
        try (TestServer t = server("first")) {
            assertThat(t.get("/modules/dice/v").body()).isEqualTo("1.0");
            dice("1.1");
            HttpResponse<String> reloaded = t.post("/api/admin/modules/dice/reload", "{\"jar\": \"dice-1.1.jar\"}");
            assertThat(reloaded.statusCode()).as(reloaded.body()).isEqualTo(200);
            assertThat(Json.MAPPER.readTree(reloaded.body()).get("jars").toString()).isEqualTo("[\"dice-1.1.jar\"]");
            assertThat(t.get("/modules/dice/v").body()).isEqualTo("1.1");

            assertThat(t.post("/api/admin/modules/dice/reload", "").statusCode()).as("from its own jar").isEqualTo(200);
            assertThat(dir.resolve("modules/dice-1.1.jar")).as("reloading the same jar moves nothing").exists();
        }
        assertThat(old).doesNotExist();
        assertThat(dir.resolve("modules/.replaced/dice-1.0.jar")).as("never deleted").exists();
        assertThat(adminLog.lines()).anySatisfy(l -> assertThat(l).contains("dice-1.0.jar was replaced by dice-1.1.jar"));

        try (TestServer t = server("second")) {
            assertThat(dice(t).get("version").asText()).isEqualTo("1.1");
            assertThat(t.get("/modules/dice/v").body()).isEqualTo("1.1");
            dice("0.9"); // back to an older version: the restart must not bring 1.1 back
            HttpResponse<String> back = t.post("/api/admin/modules/dice/reload", "{\"jar\": \"dice-0.9.jar\"}");
            assertThat(back.statusCode()).as(back.body()).isEqualTo(200);
        }
        assertThat(dir.resolve("modules/.replaced/dice-1.1.jar")).exists();
        try (TestServer t = server("third")) {
            assertThat(t.get("/modules/dice/v").body()).isEqualTo("0.9");
        }
    }

    @Test
    void aReloadWhoseOldJarCannotMoveStillSucceedsAndTheLogSaysWhatStartsNextTime() throws Exception {
        Path old = dice("1.1");
        Files.writeString(dir.resolve("modules/.replaced"), "a file where the folder would go");
        try (TestServer t = server("server")) {
            dice("1.0");
            HttpResponse<String> reloaded = t.post("/api/admin/modules/dice/reload", "{\"jar\": \"dice-1.0.jar\"}");
            assertThat(reloaded.statusCode()).as(reloaded.body()).isEqualTo(200);
            assertThat(t.get("/modules/dice/v").body()).isEqualTo("1.0");
        }
        assertThat(old).exists();
        assertThat(adminLog.lines()).anySatisfy(l -> assertThat(l)
                .contains("dice-1.1.jar was replaced by dice-1.0.jar but could not be moved", "next start loads [dice-1.1.jar]"));
    }
}
