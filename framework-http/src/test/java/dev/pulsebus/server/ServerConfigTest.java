package dev.pulsebus.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pulsebus.config.ConfigException;
import dev.pulsebus.telegram.TelegramSettings;
import dev.pulsebus.onebot.OneBotSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The configuration: defaults, the shipped file, environment overrides, and clear errors. */
class ServerConfigTest {

    @TempDir
    Path dir;

    private Path write(String toml) throws Exception {
        return Files.writeString(dir.resolve("pulsebus.toml"), toml);
    }

    @Test
    void theShippedFileLoadsAndMatchesTheDefaults() {
        ServerConfig shipped = ServerConfig.load(Path.of("..", "config", "pulsebus.toml"), false, Map.of());
        ServerConfig defaults = ServerConfig.defaults();
        assertThat(shipped.listen().port()).isEqualTo(8080).isEqualTo(defaults.listen().port());
        assertThat(shipped.listen().host()).isEqualTo("127.0.0.1").isEqualTo(defaults.listen().host());
        assertThat(shipped.listen().maxBodyBytes()).isEqualTo(defaults.listen().maxBodyBytes());
        assertThat(shipped.bus().slowHandlerMs()).isEqualTo(1000).isEqualTo(defaults.bus().slowHandlerMs());
        assertThat(shipped.listen().token().isEmpty()).isTrue();
        assertThat(shipped.modules().modules()).containsKey("example");
        assertThat(shipped.modules().loadTimeoutMs()).isEqualTo(10_000).isEqualTo(defaults.modules().loadTimeoutMs());
        assertThat(shipped.bus().stallMs()).isEqualTo(10_000).isEqualTo(defaults.bus().stallMs());
        assertThat(shipped.bus().costSampleEvery()).isEqualTo(16).isEqualTo(defaults.bus().costSampleEvery());
    }

    @Test
    void environmentVariablesOverrideTheFile() throws Exception {
        Path f = write("[server]\nport = 9000\n");
        ServerConfig c = ServerConfig.load(f, false, Map.of("PULSEBUS_SERVER_PORT", "9090",
                "PULSEBUS_METRICS_ENABLED", "false", "HOME", "/root"));
        assertThat(c.listen().port()).isEqualTo(9090);
        assertThat(c.metricsEnabled()).isFalse();
        assertThat(ServerConfig.load(f, false, Map.of("PULSEBUS_BUS_SLOW_HANDLER_MS", "250")).bus().slowHandlerMs())
                .isEqualTo(250);
        assertThat(ServerConfig.load(f, false, Map.of("PULSEBUS_BUS_COST_SAMPLE_EVERY", "0")).bus().costSampleEvery())
                .as("off").isZero();
        ServerConfig secrets = ServerConfig.load(f, false, Map.of("PULSEBUS_SERVER_TOKEN", "0123",
                "PULSEBUS_STORAGE_PASSWORD", "007", "PULSEBUS_STORAGE_USERNAME", "1.50"));
        assertThat(secrets.listen().token().reveal()).isEqualTo("0123");
        assertThat(secrets.storage().password().reveal()).isEqualTo("007");
        // by field: the record's temp file path is random digits and may hold "007" itself
        assertThat(secrets.toString()).as("the record prints no secret").doesNotContain("token=0123")
                .doesNotContain("password=007")
                .contains("token=****").contains("password=****");
        assertThat(secrets.storage().username()).isEqualTo("1.50");
        assertThat(ServerConfig.load(f, false, Map.of("PULSEBUS_JAVA_OPTS", "-Xmx512m", "PULSEBUS_AOT", "0",
                "PULSEBUS_JAVA", "/usr/bin/java", "PULSEBUS_NPM_CACHE", "/tmp/npm")).listen().port())
                .as("the launcher's and the test tools' variables are not settings").isEqualTo(9000);
        assertThatThrownBy(() -> ServerConfig.load(f, false, Map.of("PULSEBUS_SERVER_PROT", "1")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("PULSEBUS_SERVER_PROT names no setting");
    }

    @Test
    void theModuleLoadTimeoutIsASettingOfModulesBesideTheModulesOwnSections() throws Exception {
        assertThat(ServerConfig.defaults().modules().loadTimeoutMs()).isEqualTo(10_000);
        ServerConfig c = ServerConfig.load(write("[modules]\nload_timeout_ms = 2500\n\n[modules.hello]\ngreeting = \"hi\"\n"),
                false, Map.of());
        assertThat(c.modules().loadTimeoutMs()).isEqualTo(2500);
        assertThat(c.modules().modules()).as("not a module's section").containsOnlyKeys("hello");
        assertThat(ServerConfig.load(write(""), false, Map.of("PULSEBUS_MODULES_LOAD_TIMEOUT_MS", "700"))
                .modules().loadTimeoutMs()).isEqualTo(700);
        assertThatThrownBy(() -> ServerConfig.load(write("[modules]\nload_timeout_ms = 0\n"), false, Map.of()))
                .hasMessageContaining("modules.load_timeout_ms must be between 1 and");
        assertThatThrownBy(() -> ServerConfig.load(write("[modules]\nload_timeout = 5\n"), false, Map.of()))
                .hasMessageContaining("unknown setting modules.load_timeout; known in [modules]: load_timeout_ms")
                .hasMessageContaining("[modules.<id>]");
    }

    @Test
    void theFrontDoorsSettingsReadFromTheFileAndTheEnvironment() throws Exception {
        ServerConfig defaults = ServerConfig.defaults();
        assertThat(defaults.listen().adminToken().isEmpty()).isTrue();
        assertThat(defaults.listen().allowedHosts()).isEmpty();
        assertThat(defaults.listen().maxConnectionsPerClient()).isEqualTo(256).isLessThan(defaults.listen().maxConnections());
        Path f = write("[server]\nadmin_token = \"0042\"\nallowed_hosts = [\"Bot.Example.com\", \".corp.example\"]\n"
                + "max_connections_per_client = 16\n\n[adapters.onebot11]\nallowed_origins = [\"https://panel.example\"]\n");
        ServerConfig c = ServerConfig.load(f, false, Map.of());
        assertThat(c.listen().adminToken().reveal()).isEqualTo("0042");
        assertThat(c.listen().allowedHosts()).containsExactly("bot.example.com", ".corp.example");
        assertThat(c.listen().maxConnectionsPerClient()).isEqualTo(16);
        assertThat(c.platformSettings(OneBotSettings.class).get(0).allowedOrigins()).containsExactly("https://panel.example");
        assertThat(ServerConfig.load(f, false, Map.of("PULSEBUS_SERVER_ALLOWED_HOSTS", "a.example, b.example"))
                .listen().allowedHosts()).containsExactly("a.example", "b.example");
        assertThatThrownBy(() -> ServerConfig.load(write("[server]\nallowed_hosts = [1]\n"), false, Map.of()))
                .hasMessageContaining("server.allowed_hosts is an array with 1 in it");
        assertThatThrownBy(() -> ServerConfig.load(write("[server]\nmax_connections_per_client = 0\n"), false,
                Map.of())).hasMessageContaining("server.max_connections_per_client must be between 1");
    }

    @Test
    void aBrokenFileNamesTheLine() throws Exception {
        Path f = write("[server]\nport = 8080\nhost = \"unterminated\n");
        assertThatThrownBy(() -> ServerConfig.load(f, false, Map.of()))
                .isInstanceOf(ConfigException.class).hasMessageContaining("line 3");
    }

    @Test
    void unknownSettingsAndBadValuesAreErrorsThatNameThem() throws Exception {
        assertThatThrownBy(() -> ServerConfig.load(write("[server]\nprot = 1\n"), false, Map.of()))
                .hasMessageContaining("unknown setting server.prot");
        assertThatThrownBy(() -> ServerConfig.load(write("[sever]\nport = 1\n"), false, Map.of()))
                .hasMessageContaining("unknown section [sever]");
        assertThatThrownBy(() -> ServerConfig.load(write("[server]\nport = 70000\n"), false, Map.of()))
                .hasMessageContaining("server.port must be between 0 and 65535, was 70000");
        assertThatThrownBy(() -> ServerConfig.load(write("[server]\nport = \"eighty\"\n"), false, Map.of()))
                .hasMessageContaining("server.port must be an integer");
        assertThatThrownBy(() -> ServerConfig.load(write("[metrics]\nenabled = \"maybe\"\n"), false, Map.of()))
                .hasMessageContaining("metrics.enabled must be true or false");
        assertThatThrownBy(() -> ServerConfig.load(dir.resolve("absent.toml"), false, Map.of()))
                .hasMessageContaining("does not exist");
        assertThat(ServerConfig.load(dir.resolve("absent.toml"), true, Map.of()).listen().port()).isEqualTo(8080);
    }

    @Test
    void commandLineFlagsWinAndBadOnesAreUsageErrors() {
        ServerConfig c = ServerMain.configure(new String[] {"--port", "0", "--data-dir", dir.toString()});
        assertThat(c.listen().port()).isZero();
        assertThat(c.storage().dataDir()).isEqualTo(dir);
        assertThat(ServerMain.run(new String[] {"--port", "abc"})).isEqualTo(2);
        assertThat(ServerMain.run(new String[] {"--frobnicate"})).isEqualTo(2);
        assertThat(ServerMain.run(new String[] {"--config", dir.resolve("absent.toml").toString()})).isEqualTo(2);
        assertThat(ServerMain.run(new String[] {"--help"})).isZero();
    }

    @Test
    void versionPrintsTheBuildsVersionCommitAndJdkAndStartsNothing() {
        java.io.PrintStream out = System.out;
        java.io.ByteArrayOutputStream printed = new java.io.ByteArrayOutputStream();
        System.setOut(new java.io.PrintStream(printed, true, java.nio.charset.StandardCharsets.UTF_8));
        try {
            assertThat(ServerMain.run(new String[] {"--version"})).isZero();
        } finally {
            System.setOut(out);
        }
        assertThat(printed.toString(java.nio.charset.StandardCharsets.UTF_8).trim())
                .matches("PulseBus \\d+\\.\\d+\\.\\d+(-SNAPSHOT)? \\(commit ([0-9a-f]{7}(-dirty)?|unknown)\\) on JDK .+")
                .contains(PulseBusServer.VERSION, BuildInfo.CURRENT.commit());
        assertThat(BuildInfo.CURRENT.commit()).as("built from this checkout").isNotEqualTo("unknown");
    }

    @Test
    void theClusterSectionIsReadWithItsDefaults() throws Exception {
        assertThat(ServerConfig.defaults().cluster().enabled()).isFalse();
        assertThat(ServerConfig.defaults().cluster().partitions()).isEqualTo(64);
        Path f = write("[storage]\njdbc_url = \"jdbc:postgresql://127.0.0.1:5432/test\"\n[cluster]\nenabled = true\n"
                + "instance = \"a\"\nbroker = \"amqp://guest:guest@127.0.0.1:5672\"\npartitions = 8\n"
                + "redis = \"redis://127.0.0.1:6379\"\n");
        ServerConfig c = ServerConfig.load(f, false, Map.of("PULSEBUS_CLUSTER_PARTITIONS", "16"));
        assertThat(c.cluster().enabled()).isTrue();
        assertThat(c.cluster().instance()).isEqualTo("a");
        assertThat(c.cluster().partitions()).isEqualTo(16);
        assertThat(c.cluster().broker().getPort()).isEqualTo(5672);
        assertThat(c.cluster().redis().getPort()).isEqualTo(6379);
    }

    @Test
    void aClusterRefusesThePlatformModesOnlyOneInstanceCouldServeAndTakesPolling() throws Exception {
        String cluster = "[storage]\njdbc_url = \"jdbc:postgresql://127.0.0.1:5432/test\"\n[cluster]\nenabled = true\n";
        Path quick = write(cluster + "[adapters.onebot11]\nenabled = true\nmode = \"http\"\n");
        assertThatThrownBy(() -> ServerConfig.load(quick, false, Map.of())).isInstanceOf(ConfigException.class)
                .hasMessageContaining("adapters.onebot11.url is empty with mode = \"http\" and cluster.enabled");
        Path noSecret = write(cluster + "[adapters.telegram]\nenabled = true\nmode = \"webhook\"\ntoken = \"1:a\"\n"
                + "webhook_url = \"https://bot.example.com\"\n");
        assertThatThrownBy(() -> ServerConfig.load(noSecret, false, Map.of())).isInstanceOf(ConfigException.class)
                .hasMessageContaining("adapters.telegram.webhook_secret is empty").hasMessageContaining("one value for all instances");
        Path fine = write(cluster + "[adapters.telegram]\nenabled = true\nmode = \"webhook\"\ntoken = \"1:a\"\n"
                + "webhook_url = \"https://bot.example.com\"\nwebhook_secret = \"s\"\n[adapters.onebot11]\nenabled = true\nmode = \"http\"\n"
                + "url = \"http://127.0.0.1:5700\"\n[adapters.onebot12]\nenabled = true\nmode = \"forward-ws\"\n"
                + "url = \"ws://127.0.0.1:6700\"\n");
        assertThat(ServerConfig.load(fine, false, Map.of()).platformSettings(OneBotSettings.class)).hasSize(2);
        Path polling = write(cluster + "[adapters.telegram]\nenabled = true\nmode = \"polling\"\ntoken = \"1:a\"\n");
        assertThat(ServerConfig.load(polling, false, Map.of()).platformSettings(TelegramSettings.class))
                .as("polling in a cluster: one instance at a time holds the bot's lease; no webhook_secret needed")
                .isNotEmpty();
        Path alone = write("[adapters.telegram]\nenabled = true\nmode = \"polling\"\ntoken = \"1:a\"\n");
        assertThat(ServerConfig.load(alone, false, Map.of()).platformSettings(TelegramSettings.class)).isNotEmpty(); // polling is fine on one
    }

    @Test
    void aClusterOnSqliteIsRefusedWithTheReason() throws Exception {
        Path f = write("[cluster]\nenabled = true\n");
        assertThatThrownBy(() -> ServerConfig.load(f, false, Map.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("cluster.enabled needs storage.jdbc_url on PostgreSQL or MariaDB")
                .hasMessageContaining("SQLite");
        Path g = write("[storage]\njdbc_url = \"jdbc:sqlite:x.db\"\n[cluster]\nenabled = true\n");
        assertThatThrownBy(() -> ServerConfig.load(g, false, Map.of())).isInstanceOf(ConfigException.class)
                .hasMessageContaining("jdbc:sqlite:x.db");
        Path mariadb = write("[storage]\njdbc_url = \"jdbc:mariadb://127.0.0.1:3306/test\"\n[cluster]\nenabled = true\n");
        assertThat(ServerConfig.load(mariadb, false, Map.of()).cluster().enabled()).isTrue();
    }

    @Test
    void badClusterValuesNameTheSetting() throws Exception {
        String pg = "[storage]\njdbc_url = \"jdbc:postgresql://127.0.0.1:5432/test\"\n[cluster]\nenabled = true\n";
        assertThatThrownBy(() -> ServerConfig.load(write(pg + "broker = \"nats://127.0.0.1:4222\"\n"), false, Map.of()))
                .isInstanceOf(ConfigException.class).hasMessageContaining("RabbitMQ only");
        assertThatThrownBy(() -> ServerConfig.load(write(pg + "partitions = 0\n"), false, Map.of()))
                .isInstanceOf(ConfigException.class).hasMessageContaining("cluster.partitions must be between 1 and 1024");
        assertThatThrownBy(() -> ServerConfig.load(write(pg + "redis = \"http://x\"\n"), false, Map.of()))
                .isInstanceOf(ConfigException.class).hasMessageContaining("cluster.redis is not a usable URL");
        assertThatThrownBy(() -> ServerConfig.load(write(pg + "members = 3\n"), false, Map.of()))
                .isInstanceOf(ConfigException.class).hasMessageContaining("unknown setting cluster.members");
    }

    @Test
    void theShippedIrcSectionIsCommentedOutAndReadsWhenUncommented() throws Exception {
        String shipped = Files.readString(Path.of("..", "config", "pulsebus.toml"));
        assertThat(ServerConfig.load(Path.of("..", "config", "pulsebus.toml"), false, Map.of()).platform("irc"))
                .isNull();
        int start = shipped.indexOf("\n# [adapters.irc]");
        int end = shipped.indexOf("\n\n", start);
        String irc = shipped.substring(start, end < 0 ? shipped.length() : end).replaceAll("(?m)^# ", "");
        dev.pulsebus.platform.PlatformSection<?> section = ServerConfig.load(write(irc), false, Map.of()).platform("irc");
        assertThat(section).as("found through the platform SPI, read from its section").isNotNull();
        assertThat(section.settings().enabled()).isTrue();
    }
}
