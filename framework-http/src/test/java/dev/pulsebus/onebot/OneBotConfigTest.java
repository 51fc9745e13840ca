package dev.pulsebus.onebot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pulsebus.config.ConfigException;
import dev.pulsebus.server.ServerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OneBotConfigTest {

    @TempDir
    Path dir;

    private ServerConfig load(String toml, Map<String, String> env) throws Exception {
        Path file = dir.resolve("pulsebus.toml");
        Files.writeString(file, toml);
        return ServerConfig.load(file, false, env);
    }

    @Test
    void readsTheKeysOfTheIssue() throws Exception {
        ServerConfig c = load("""
                [adapters.onebot11]
                enabled = true
                mode = "forward-ws"
                url = "ws://127.0.0.1:3001"
                access_token = "abc"
                secret = ""
                action_timeout_ms = 2500
                [adapters.onebot12]
                mode = "http"
                """, Map.of());
        assertThat(c.platformSettings(OneBotSettings.class)).hasSize(2);
        OneBotSettings v11 = c.platformSettings(OneBotSettings.class).stream().filter(s -> s.version() == 11).findFirst().orElseThrow();
        assertThat(v11.mode()).isEqualTo(Mode.FORWARD_WS);
        assertThat(v11.url()).isEqualTo("ws://127.0.0.1:3001");
        assertThat(v11.accessToken().reveal()).isEqualTo("abc");
        assertThat(v11.toString()).as("printed masked").doesNotContain("abc").contains("accessToken=****");
        assertThat(v11.actionTimeoutMs()).isEqualTo(2500);
        assertThat(v11.maxFrameBytes()).isEqualTo(1024 * 1024);
        OneBotSettings v12 = c.platformSettings(OneBotSettings.class).stream().filter(s -> s.version() == 12).findFirst().orElseThrow();
        assertThat(v12.mode()).isEqualTo(Mode.HTTP);
        assertThat(v12.actionTimeoutMs()).isEqualTo(10_000);
    }

    @Test
    void anEnvironmentOverrideIsTakenAsTheTextItIs() throws Exception {
        ServerConfig c = load("[adapters.onebot11]\nmode = \"reverse-ws\"\n",
                Map.of("PULSEBUS_ADAPTERS_ONEBOT11__ACCESS_TOKEN", "0123",
                        "PULSEBUS_ADAPTERS_ONEBOT11__ACTION_TIMEOUT_MS", "700"));
        assertThat(c.platformSettings(OneBotSettings.class).get(0).accessToken().reveal()).isEqualTo("0123");
        assertThat(c.platformSettings(OneBotSettings.class).get(0).actionTimeoutMs()).isEqualTo(700);
    }

    @Test
    void anUnknownKeyOrModeNamesTheSetting() {
        assertThatThrownBy(() -> load("[adapters.onebot11]\ntoken = \"x\"\n", Map.of()))
                .isInstanceOf(ConfigException.class).hasMessageContaining("adapters.onebot11.token");
        assertThatThrownBy(() -> load("[adapters.onebot11]\nmode = \"carrier-pigeon\"\n", Map.of()))
                .isInstanceOf(ConfigException.class).hasMessageContaining("adapters.onebot11.mode");
        assertThatThrownBy(() -> load("[adapters.onebot13]\nmode = \"http\"\n", Map.of()))
                .isInstanceOf(ConfigException.class).hasMessageContaining("adapters.onebot13");
        assertThatThrownBy(() -> load("", Map.of("PULSEBUS_ADAPTERS_ONEBOT11__TOKEN", "x")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("PULSEBUS_ADAPTERS_ONEBOT11__TOKEN");
        assertThatThrownBy(() -> load("[adapters.onebot11]\nmode = \"forward-ws\"\nurl = \"http://x\"\n", Map.of()))
                .isInstanceOf(ConfigException.class).hasMessageContaining("adapters.onebot11.url");
    }

    @Test
    void theShippedConfigurationHasTheSectionsCommentedOut() throws Exception {
        String shipped = Files.readString(Path.of("..", "config", "pulsebus.toml"));
        assertThat(shipped).contains("# [adapters.onebot11]").contains("# [adapters.onebot12]");
        ServerConfig c = ServerConfig.load(Path.of("..", "config", "pulsebus.toml"), false, Map.of());
        assertThat(c.platformSettings(OneBotSettings.class)).isEmpty();
        String onebot = shipped.substring(0, shipped.indexOf("\n# Telegram")); // its own section, its own test
        String uncommented = onebot.replaceAll("(?m)^# (\\[adapters|enabled|mode|url|access_token|secret|"
                + "action_timeout_ms|max_frame_bytes)", "$1");
        assertThat(load(uncommented, Map.of()).platformSettings(OneBotSettings.class)).hasSize(2);
    }

    @Test
    void anEmptyAccessTokenServedBeyondLoopbackIsRefusedUnlessAllowed() throws Exception {
        String section = "[adapters.onebot11]\nmode = \"reverse-ws\"\n";
        assertThatThrownBy(() -> load("[server]\nhost = \"0.0.0.0\"\n" + section, Map.of()))
                .isInstanceOf(ConfigException.class).hasMessageContaining("adapters.onebot11 has an empty access_token")
                .hasMessageContaining("allow_anonymous = true");
        assertThatThrownBy(() -> load("[server]\nhost = \"0.0.0.0\"\n[adapters.onebot12]\nmode = \"http\"\n", Map.of()))
                .isInstanceOf(ConfigException.class).hasMessageContaining("adapters.onebot12");
        assertThat(load("[server]\nhost = \"0.0.0.0\"\n" + section + "allow_anonymous = true\n", Map.of()).platformSettings(OneBotSettings.class).get(0)
                .allowAnonymous()).isTrue();
        assertThat(load("[server]\nhost = \"0.0.0.0\"\n" + section + "access_token = \"t\"\n", Map.of()).platformSettings(OneBotSettings.class)).hasSize(1);
        assertThat(load("[server]\nhost = \"0.0.0.0\"\n[adapters.onebot11]\nmode = \"forward-ws\"\n", Map.of()).platformSettings(OneBotSettings.class))
                .as("forward-ws serves nothing on the port").hasSize(1);
        assertThat(load("[server]\nhost = \"127.0.0.1\"\n" + section, Map.of()).platformSettings(OneBotSettings.class)).hasSize(1);
        assertThat(load("[server]\nhost = \"::1\"\n" + section, Map.of()).platformSettings(OneBotSettings.class)).hasSize(1);
        assertThat(load("[server]\nhost = \"localhost\"\n" + section, Map.of()).platformSettings(OneBotSettings.class)).hasSize(1);
    }
}
