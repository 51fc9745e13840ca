package dev.pulsebus.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pulsebus.internal.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The browser console in a real headless Chromium: {@code src/test/browser/console.test.mjs}, run by Node
 * with playwright-core, against servers on real sockets (one without a token, with jar modules to reload;
 * one with a token; one with an admin token too; one without a token and with an empty modules folder, whose
 * traffic is the scenarios' own; one without a token for a page on another origin to attack, served by the
 * script on another port). Each test is one scenario of that script.
 *
 * <p>Skipped, with the reason printed, when Node, playwright-core or Chromium is missing: playwright-core
 * is looked for in {@code -Dpulsebus.npm.cache} or {@code $PULSEBUS_NPM_CACHE} (default
 * {@code ~/.cache/pulsebus-npm}, where {@code .ci/run} installs it), Chromium at {@code -Dpulsebus.chromium}
 * or {@code $PULSEBUS_CHROMIUM} (default {@code /usr/bin/chromium}). Screenshots of each view go to
 * {@code target/console-screenshots}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ConsoleBrowserTest {

    static final String TOKEN = "browser-s3cret";
    static final String ADMIN_TOKEN = "browser-admin-s3cret";
    private static final Path SCRIPT = Path.of("src/test/browser/console.test.mjs");

    @TempDir
    static Path dir;

    private @Nullable String unavailable;
    private @Nullable TestServer open;
    private @Nullable TestServer guarded;
    private @Nullable TestServer admin;
    private @Nullable TestServer attacked;
    private @Nullable TestServer fresh;
    private Path npm = Path.of("");
    private String chromium = "";
    private @Nullable String benchBefore;

    @BeforeAll
    void start() throws Exception {
        npm = Path.of(setting("pulsebus.npm.cache", "PULSEBUS_NPM_CACHE",
                System.getProperty("user.home") + "/.cache/pulsebus-npm"));
        chromium = setting("pulsebus.chromium", "PULSEBUS_CHROMIUM", "/usr/bin/chromium");
        unavailable = missing();
        if (unavailable != null) {
            System.out.println("[pulsebus] browser tests skipped: " + unavailable);
            return;
        }
        Path modules = Files.createDirectories(dir.resolve("modules"));
        Path jars = Files.createDirectories(dir.resolve("jars"));
        Files.copy(ConsoleApiTest.hot(jars, "v1", ""), modules.resolve("hot-v1.jar"));
        Path a = Files.createDirectories(dir.resolve("open"));
        open = ConsoleApiTest.serverWithModules(a, "", modules);
        // after the start, so that only v1 is loaded: the page reloads into these
        Files.copy(ConsoleApiTest.hot(jars, "v2", ""), modules.resolve("hot-v2.jar"));
        Files.copy(ConsoleApiTest.hot(jars, "broken", ConsoleApiTest.BROKEN),
                modules.resolve("hot-broken.jar"));
        guarded = new TestServer(Files.createDirectories(dir.resolve("guarded")), "token = \"" + TOKEN + "\"\n");
        admin = new TestServer(Files.createDirectories(dir.resolve("admin")), "token = \"" + TOKEN + "\"\n"
                + "admin_token = \"" + ADMIN_TOKEN + "\"\n");
        fresh = ConsoleApiTest.serverWithModules(Files.createDirectories(dir.resolve("fresh")),
                "\n[bus]\nslow_handler_ms = 200\n", Files.createDirectories(dir.resolve("empty-modules")));
        fresh.server.modules().load(new SlowTracesTest.Slowpoke()); // its /slow takes 250 ms: a trace
        Path attackModules = Files.createDirectories(dir.resolve("attack-modules"));
        Files.copy(modules.resolve("hot-v1.jar"), attackModules.resolve("hot-v1.jar"));
        attacked = ConsoleApiTest.serverWithModules(Files.createDirectories(dir.resolve("attacked")),
                "\n[adapters.onebot11]\nmode = \"reverse-ws\"\n", attackModules);
        Files.copy(modules.resolve("hot-v2.jar"), attackModules.resolve("hot-v2.jar"));
        Path results = dir.resolve("results.json");
        Files.writeString(results, """
                {"meta": {"quick": true, "commit": "abc1234"}, "results": [
                  {"suite": "http", "name": "http.health", "unit": "ops/s", "ops_per_sec": 52000.0, "p50_us": 480.0,
                   "p99_us": 1500.0, "alloc_bytes_per_op": 900.0, "note": "GET /health"},
                  {"suite": "http", "name": "http.admin_stats", "unit": "ops/s", "ops_per_sec": 48000.0,
                   "p50_us": 500.0, "p99_us": 1600.0, "alloc_bytes_per_op": 1100.0, "note": "GET /api/admin/stats"}]}
                """);
        benchBefore = System.getProperty("pulsebus.console.bench");
        System.setProperty("pulsebus.console.bench", results.toString());
    }

    @AfterAll
    void stop() {
        if (open != null) {
            open.close();
        }
        for (TestServer s : new TestServer[] {guarded, admin, attacked, fresh}) {
            if (s != null) {
                s.close();
            }
        }
        if (benchBefore == null) {
            System.clearProperty("pulsebus.console.bench");
        } else {
            System.setProperty("pulsebus.console.bench", benchBefore);
        }
    }

    @Test
    void rollTypedInThePageIsAnsweredAndAMessageFromOutsideAppearsWithoutReload() throws Exception {
        run("chat");
    }

    @Test
    void htmlInMessagesStaysText() throws Exception {
        run("xss");
    }

    @Test
    void chartsDrawPointsAndHealthShowsItsComponents() throws Exception {
        dev.pulsebus.testing.Required.service("browser", unavailable == null ? null : "browser tests: " + unavailable);
        // an edit of a setting read at start: the live view lists it as pending until a restart
        Path file = dir.resolve("open").resolve("pulsebus.toml");
        Files.writeString(file, Files.readString(file).replace("port = 0\n", "port = 0\nmax_body_bytes = 4096\n"));
        run("live");
    }

    @Test
    void aJarModuleReloadedFromThePageAnswersAsItsNewVersionAndAFailedReloadKeepsIt() throws Exception {
        run("modules");
    }

    @Test
    void theProfileViewDrawsAFlameGraphOfTheRunningServer() throws Exception {
        run("profile");
    }

    @Test
    void theErrorsViewDrawsASlowCommandsTimeLine() throws Exception {
        run("slow");
    }

    @Test
    void theBenchmarkViewShowsTheConfiguredResults() throws Exception {
        run("bench");
    }

    @Test
    void withoutAResultsFileTheBenchmarkViewSaysHowToMakeOne() throws Exception {
        System.clearProperty("pulsebus.console.bench"); // and the tests run in framework-http: none is found
        try {
            run("benchMissing");
        } finally {
            System.setProperty("pulsebus.console.bench", dir.resolve("results.json").toString());
        }
    }

    @Test
    void aMessageTypedWhileTheLastOneIsAnsweredStaysInTheBox() throws Exception {
        run("typing");
    }

    @Test
    void thePageOpensTheMostRecentlyActiveRoomThenTheOneUsedLast() throws Exception {
        run("latestRoom");
    }

    @Test
    void commandsAloneShowTheirLatencyInTheChart() throws Exception {
        run("commandLatency");
    }

    @Test
    void loadIsDisabledWithAnEmptyModulesFolder() throws Exception {
        run("emptyModules");
    }

    @Test
    void withATokenThePageAsksForItAndAdminCallsWithoutItAre401() throws Exception {
        run("token");
    }

    @Test
    void withAnAdminTokenThePageAsksForItApartAndKeepsBothInTheTab() throws Exception {
        run("adminToken");
    }

    /**
     * A page on another origin unloads, reloads and says through no-cors fetches and text/plain forms, opens
     * the OneBot WebSocket, and reads through a rebound name: nothing changes, nothing is read.
     */
    @Test
    void aPageOnAnotherOriginCannotChangeOrReadTheServer() throws Exception {
        run("attack");
    }

    private void run(String scenario) throws Exception {
        dev.pulsebus.testing.Required.service("browser", unavailable == null ? null : "browser tests: " + unavailable);
        TestServer a = java.util.Objects.requireNonNull(open);
        TestServer b = java.util.Objects.requireNonNull(guarded);
        Path log = Files.createDirectories(Path.of("target/console-browser")).resolve(scenario + ".log");
        ProcessBuilder pb = new ProcessBuilder("node", SCRIPT.toString(), scenario).redirectErrorStream(true)
                .redirectOutput(log.toFile());
        Map<String, String> env = pb.environment();
        env.put("PULSEBUS_NPM_CACHE", npm.toAbsolutePath().toString());
        env.put("PULSEBUS_CHROMIUM", chromium);
        env.put("PULSEBUS_URL", a.server.url().toString());
        env.put("PULSEBUS_TOKEN_URL", b.server.url().toString());
        env.put("PULSEBUS_TOKEN", TOKEN);
        env.put("PULSEBUS_ADMIN_URL", java.util.Objects.requireNonNull(admin).server.url().toString());
        env.put("PULSEBUS_ADMIN_TOKEN", ADMIN_TOKEN);
        env.put("PULSEBUS_FRESH_URL", java.util.Objects.requireNonNull(fresh).server.url().toString());
        env.put("PULSEBUS_ATTACK_URL", java.util.Objects.requireNonNull(attacked).server.url().toString());
        env.put("PULSEBUS_SHOTS", Path.of("target/console-screenshots").toAbsolutePath().toString());
        Process node = pb.start();
        boolean done = node.waitFor(150, TimeUnit.SECONDS);
        if (!done) {
            node.destroyForcibly().waitFor();
        }
        String out = Files.readString(log, StandardCharsets.UTF_8);
        System.out.print(out);
        assertThat(done).as("the browser scenario finished in time").isTrue();
        assertThat(node.exitValue()).as("browser scenario %s:%n%s", scenario, out).isZero();
    }

    /** Why the browser tests cannot run here, or null when they can. */
    private @Nullable String missing() {
        try {
            Process p = new ProcessBuilder("node", "--version").redirectErrorStream(true).start();
            String version = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
                return "node --version failed: " + version;
            }
        } catch (IOException | InterruptedException e) {
            return "no node on PATH (" + e.getMessage() + ")";
        }
        String pinned = version(Path.of("src/test/browser/package.json"), "dependencies", "playwright-core");
        Path installed = npm.resolve("node_modules/playwright-core/package.json");
        if (!Files.isRegularFile(installed)) {
            return "no playwright-core in " + npm + " (.ci/run installs it: npm ci in that folder with"
                    + " src/test/browser/package.json and package-lock.json)";
        }
        String found = version(installed, "version");
        if (!pinned.equals(found)) {
            return "playwright-core " + found + " in " + npm + ", not the pinned " + pinned;
        }
        if (!Files.isExecutable(Path.of(chromium))) {
            return "no Chromium at " + chromium + " (apt-get install chromium)";
        }
        return null;
    }

    /** The text at {@code path} ("dependencies", "playwright-core") in a package.json; "" when absent. */
    private static String version(Path packageJson, String... path) {
        try {
            JsonNode node = Json.MAPPER.readTree(packageJson.toFile());
            for (String p : path) {
                node = node.path(p);
            }
            return node.asText("");
        } catch (IOException e) {
            return "";
        }
    }

    private static String setting(String property, String variable, String dflt) {
        String v = System.getProperty(property);
        if (v == null || v.isBlank()) {
            v = System.getenv(variable);
        }
        return v == null || v.isBlank() ? dflt : v;
    }
}
