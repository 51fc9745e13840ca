package dev.pulsebus.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pulsebus.testing.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConfigTest {

    @TempDir
    Path dir;

    private Path file(String toml) throws Exception {
        return Files.writeString(dir.resolve("pulsebus.toml"), toml);
    }

    @Test
    void typedGettersWithDefaultsAndEnvironmentOverrides() throws Exception {
        Path f = file("""
                [server]
                port = 8080
                host = "127.0.0.1"
                [metrics]
                enabled = true
                [modules.weather]
                city = "Tokyo"
                ratio = 0.5
                timeout = "PT2S"
                """);
        try (Config c = Config.builder(f).watch(false).env(Map.of("PULSEBUS_SERVER_PORT", "9090",
                "PULSEBUS_MODULES_WEATHER__CITY", "Paris", "PATH", "/bin")).build()) {
            assertThat(c.getInt("server.port", 1)).isEqualTo(9090);
            assertThat(c.getString("server.host", "")).isEqualTo("127.0.0.1");
            assertThat(c.getBoolean("metrics.enabled", false)).isTrue();
            assertThat(c.getString("modules.weather.city", "")).isEqualTo("Paris");
            assertThat(c.getDouble("modules.weather.ratio", 0)).isEqualTo(0.5);
            assertThat(c.getDuration("modules.weather.timeout", Duration.ZERO)).isEqualTo(Duration.ofSeconds(2));
            assertThat(c.getInt("absent.key", 42)).isEqualTo(42);
            assertThat(c.snapshot().section("modules.weather")).containsEntry("city", "Paris").containsKey("ratio");
            assertThatThrownBy(() -> c.getInt("server.host", 0)).isInstanceOf(ConfigException.class)
                    .hasMessageContaining("server.host must be an integer");
        }
    }

    @Test
    void environmentValuesAreTheTextGivenAndTypedOnlyWhereReadTyped() throws Exception {
        Map<String, String> env = Map.of("PULSEBUS_SERVER_TOKEN", "0123", "PULSEBUS_STORAGE_PASSWORD", "007",
                "PULSEBUS_MODULES_A__PLUS", "+42", "PULSEBUS_MODULES_A__PRICE", "1.50",
                "PULSEBUS_MODULES_A__ON", "TRUE", "PULSEBUS_MODULES_A__WAIT", "250",
                "PULSEBUS_MODULES_A__WORD", "maybe");
        try (Config c = Config.builder(null).watch(false).env(env).build()) {
            assertThat(c.getString("server.token", "")).isEqualTo("0123");
            assertThat(c.getString("storage.password", "")).isEqualTo("007");
            assertThat(c.getString("modules.a.plus", "")).isEqualTo("+42");
            assertThat(c.getString("modules.a.price", "")).isEqualTo("1.50");
            assertThat(c.snapshot().section("modules.a")).containsEntry("plus", "+42").containsEntry("price", "1.50");
            assertThat(c.getInt("modules.a.plus", 0)).isEqualTo(42);
            assertThat(c.getDouble("modules.a.price", 0)).isEqualTo(1.5);
            assertThat(c.getBoolean("modules.a.on", false)).isTrue();
            assertThat(c.getDuration("modules.a.wait", Duration.ZERO)).isEqualTo(Duration.ofMillis(250));
            assertThatThrownBy(() -> c.getInt("modules.a.word", 0)).isInstanceOf(ConfigException.class)
                    .hasMessageContaining("modules.a.word must be an integer, was maybe");
            assertThatThrownBy(() -> c.getBoolean("modules.a.word", false)).isInstanceOf(ConfigException.class)
                    .hasMessageContaining("must be true or false");
        }
    }

    @Test
    void everyTomlValueKindIsRead() throws Exception {
        Path f = file("""
                top = "level"
                [a]
                big = 9007199254740993
                negative = -7
                ratio = 1.5e3
                on = false
                names = ["x", "y"]
                nested = [[1, 2], {k = "v"}]
                day = 2026-11-30
                inline = { host = "h", port = 1 }
                [a.b.c]
                deep = 'literal \\ string'
                """);
        try (Config c = Config.builder(f).watch(false).env(Map.of()).build()) {
            ConfigSnapshot s = c.snapshot();
            assertThat(s.getString("top", "")).isEqualTo("level");
            assertThat(s.getLong("a.big", 0)).isEqualTo(9007199254740993L);
            assertThat(s.getLong("a.negative", 0)).isEqualTo(-7);
            assertThat(s.getDouble("a.ratio", 0)).isEqualTo(1500.0);
            assertThat(s.getBoolean("a.on", true)).isFalse();
            assertThat(s.getString("a.names", "")).isEqualTo("[\"x\",\"y\"]"); // arrays as their JSON text
            assertThat(s.getString("a.nested", "")).isEqualTo("[[1,2],{\"k\":\"v\"}]");
            assertThat(s.getString("a.day", "")).isEqualTo("2026-11-30");
            assertThat(s.getString("a.inline.host", "")).isEqualTo("h");
            assertThat(s.getInt("a.inline.port", 0)).isEqualTo(1);
            assertThat(s.getString("a.b.c.deep", "")).isEqualTo("literal \\ string");
        }
    }

    @Test
    void aBrokenFileAtStartNamesTheLine() throws Exception {
        Path f = file("[server]\nport = 8080\nhost = \"oops\n");
        assertThatThrownBy(() -> Config.builder(f).watch(false).env(Map.of()).build())
                .isInstanceOf(ConfigException.class).hasMessageContaining("line 3");
        assertThatThrownBy(() -> Config.builder(dir.resolve("nope.toml")).watch(false).build())
                .hasMessageContaining("does not exist");
    }

    @Test
    void writesAreSeenAtOnceCoalescedAndFlushedAtomicallyToTheRuntimeFile() throws Exception {
        Path f = file("# the operator's comment\n[bot]\nname = \"ann\"\n");
        List<ConfigChanged> changes = new CopyOnWriteArrayList<>();
        try (Config c = Config.builder(f).watch(false).env(Map.of()).flushDelay(Duration.ofMillis(100))
                .onChange(changes::add).build()) {
            for (int i = 0; i < 1000; i++) {
                c.set("modules.counter.n", i);
            }
            c.set("bot.name", "bob");
            assertThat(c.getInt("modules.counter.n", -1)).isEqualTo(999);
            assertThat(c.getString("bot.name", "")).isEqualTo("bob");
            assertThat(Files.exists(c.runtimeFile())).as("not written before the delay").isFalse();
            Await.until(Duration.ofSeconds(10), () -> Files.exists(c.runtimeFile()));
            String runtime = Files.readString(c.runtimeFile());
            assertThat(runtime).contains("999").contains("bob"); // read back below through a fresh Config
            assertThat(Files.readString(f)).as("the operator's file is untouched")
                    .isEqualTo("# the operator's comment\n[bot]\nname = \"ann\"\n");
            assertThat(Files.exists(c.runtimeFile().resolveSibling("pulsebus.runtime.toml.tmp"))).isFalse();
            assertThat(changes).hasSize(1001);
        }
        try (Config again = Config.builder(f).watch(false).env(Map.of()).build()) {
            assertThat(again.getInt("modules.counter.n", -1)).isEqualTo(999);
            assertThat(again.getString("bot.name", "")).isEqualTo("bob");
        }
    }

    @Test
    void aKeyThatWouldAlsoBeATableIsRefused() throws Exception {
        try (Config c = Config.builder(file("[a]\nb = 1\n")).watch(false).env(Map.of()).build()) {
            assertThatThrownBy(() -> c.set("a", 2)).isInstanceOf(ConfigException.class).hasMessageContaining("a.b");
            assertThatThrownBy(() -> c.set("a.b.c", 2)).isInstanceOf(ConfigException.class);
            c.set("a.b", 3);
            assertThat(c.getInt("a.b", 0)).isEqualTo(3);
        }
    }

    @Test
    void closeFlushesPendingWrites() throws Exception {
        Path f = file("");
        Config c = Config.builder(f).watch(false).env(Map.of()).flushDelay(Duration.ofHours(1)).build();
        c.set("a.b", true);
        c.close();
        try (Config again = Config.builder(f).watch(false).env(Map.of()).build()) {
            assertThat(again.getBoolean("a.b", false)).isTrue();
        }
    }

    @Test
    void anEditIsPickedUpAndABrokenEditKeepsTheLastGoodSnapshot() throws Exception {
        Path f = file("[server]\nport = 8080\n");
        List<ConfigChanged> changes = new CopyOnWriteArrayList<>();
        try (Config c = Config.builder(f).env(Map.of()).onChange(changes::add).build()) {
            Files.writeString(f, "[server]\nport = 9000\n");
            awaitValue(c, 9000);
            assertThat(changes).extracting(ConfigChanged::keys).contains(java.util.Set.of("server.port"));

            Files.writeString(f, "[server]\nport = = broken\n");
            Thread.sleep(500);
            assertThat(c.reload()).isEmpty(); // what the watcher does; the broken file changes nothing
            assertThat(c.getInt("server.port", 0)).isEqualTo(9000);

            Files.writeString(f, "[server]\nport = 9001\n");
            awaitValue(c, 9001);
        }
    }

    @Test
    void eachValueNamesWhereItComesFrom() throws Exception {
        Path f = file("""
                # the server
                [server]
                port = 8080
                host = "a"   # a comment

                [modules.weather]
                limits = { per_minute = 5 }
                """);
        try (Config c = Config.builder(f).watch(false).env(Map.of("PULSEBUS_SERVER_HOST", "b")).build()) {
            assertThat(c.snapshot().origin("server.port")).isEqualTo(f + ", line 3");
            assertThat(c.snapshot().origin("server.host")).isEqualTo("environment variable PULSEBUS_SERVER_HOST");
            assertThat(c.snapshot().origin("modules.weather.limits.per_minute")).isEqualTo(f + ", line 7");
            assertThat(c.snapshot().origin("absent")).isNull();
            assertThatThrownBy(() -> c.getInt("server.host", 0)).hasMessageStartingWith(
                    "environment variable PULSEBUS_SERVER_HOST: server.host must be an integer");
        }
    }

    @Test
    void anEditTheValidatorRefusesKeepsTheRunningSnapshot() throws Exception {
        Path f = file("[server]\nport = 8080\n");
        List<ConfigChanged> changes = new CopyOnWriteArrayList<>();
        List<String> refused = new CopyOnWriteArrayList<>();
        try (Config c = Config.builder(f).watch(false).env(Map.of()).onChange(changes::add).validate(s -> {
            if (s.getInt("server.port", 0) > 9000) {
                refused.add(s.origin("server.port"));
                throw new ConfigException(s.origin("server.port") + ": too high");
            }
        }).build()) {
            Files.writeString(f, "[server]\n\nport = 9999\n");
            assertThat(c.reload()).isEmpty();
            assertThat(c.getInt("server.port", 0)).isEqualTo(8080);
            assertThat(c.snapshot().origin("server.port")).isEqualTo(f + ", line 2");
            assertThat(refused).containsExactly(f + ", line 3");
            assertThat(changes).isEmpty();

            Files.writeString(f, "[server]\nport = 8999\n");
            assertThat(c.reload()).containsExactly("server.port");
            assertThat(c.getInt("server.port", 0)).isEqualTo(8999);
        }
    }

    private static void awaitValue(Config c, int port) throws Exception {
        Await.until(Duration.ofSeconds(20), Duration.ofMillis(20), () -> c.getInt("server.port", 0) == port);
        assertThat(c.getInt("server.port", 0)).isEqualTo(port);
    }
}
