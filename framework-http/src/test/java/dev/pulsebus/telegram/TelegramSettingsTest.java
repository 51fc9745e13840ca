package dev.pulsebus.telegram;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pulsebus.config.ConfigException;
import dev.pulsebus.config.Secret;
import dev.pulsebus.server.ServerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TelegramSettingsTest {

    @TempDir
    Path dir;

    @Test
    void defaultsArePollingTheOfficialApi() {
        TelegramSettings s = TelegramSettings.read(Map.of("token", "123:abc"), "test");
        assertThat(s.mode()).isEqualTo(TelegramSettings.Mode.POLLING);
        assertThat(s.apiUrl()).isEqualTo("https://api.telegram.org");
        assertThat(s.pollTimeoutSeconds()).isEqualTo(50);
        assertThat(s.tokens()).extracting(Secret::reveal).containsExactly("123:abc");
        assertThat(s.toString()).doesNotContain("abc");
    }

    @Test
    void severalTokensAreSeveralBots() {
        TelegramSettings s = TelegramSettings.read(Map.of("token", "1:a, 2:b"), "test");
        assertThat(TelegramAdapter.create(s, null, null).botIds()).containsExactly("1", "2");
    }

    @Test
    void aTomlArrayOfTokensIsSeveralBotsAndABotTwiceIsRefused() throws Exception {
        Path file = dir.resolve("pulsebus.toml");
        Files.writeString(file, "[adapters.telegram]\ntoken = [\"1:a\", \"22:b\"]\n");
        assertThat(ServerConfig.load(file, false, Map.of()).platformSettings(TelegramSettings.class).get(0).tokens()).extracting(Secret::reveal)
                .containsExactly("1:a", "22:b");
        Files.writeString(file, "[adapters.telegram]\ntoken = [\"1:a\", \"1:b\"]\n");
        assertThatThrownBy(() -> ServerConfig.load(file, false, Map.of())).isInstanceOf(ConfigException.class)
                .hasMessageContaining("adapters.telegram.token names bot 1 twice");
        Files.writeString(file, "[adapters.telegram]\ntoken = [\"1:a\", 2]\n");
        assertThatThrownBy(() -> ServerConfig.load(file, false, Map.of())).isInstanceOf(ConfigException.class)
                .hasMessageContaining("adapters.telegram.token is an array with 2 in it");
    }

    @Test
    void wrongSettingsAreNamed() {
        assertThatThrownBy(() -> TelegramSettings.read(Map.of("token", "1:a", "tokn", "x"), "f"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("adapters.telegram.tokn");
        assertThatThrownBy(() -> TelegramSettings.read(Map.of(), "f"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("adapters.telegram.token is empty");
        assertThatThrownBy(() -> TelegramSettings.read(Map.of("token", "abc"), "f"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("not a bot token");
        assertThatThrownBy(() -> TelegramSettings.read(Map.of("token", "1:a", "mode", "webhook"), "f"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("webhook_url is empty");
        assertThatThrownBy(() -> TelegramSettings.read(Map.of("token", "1:a", "mode", "push"), "f"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("adapters.telegram.mode");
        assertThatThrownBy(() -> TelegramSettings.read(Map.of("token", "1:a", "webhook_secret", "a b"), "f"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("webhook_secret");
    }

    @Test
    void theTokenComesFromTheEnvironmentAsText() throws Exception {
        Path file = dir.resolve("pulsebus.toml");
        Files.writeString(file, "[adapters.telegram]\nmode = \"polling\"\n");
        ServerConfig c = ServerConfig.load(file, false, Map.of("PULSEBUS_ADAPTERS_TELEGRAM__TOKEN", "0123:0456"));
        assertThat(c.platformSettings(TelegramSettings.class)).isNotEmpty();
        assertThat(c.platformSettings(TelegramSettings.class).get(0).tokens()).extracting(Secret::reveal).containsExactly("0123:0456");
        assertThatThrownBy(() -> ServerConfig.load(file, false, Map.of("PULSEBUS_ADAPTERS_TELEGRAM__TOKN", "1:a")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("names no setting");
        assertThat(ServerConfig.defaults().platformSettings(TelegramSettings.class)).isEmpty();
    }

    @Test
    void webhookUrlIsTheServersRootOrTheFullPath() {
        TelegramSettings s = TelegramSettings.polling("http://x", "1:a");
        assertThat(s.withWebhook("https://b.example/", "").webhookFor("1")).isEqualTo("https://b.example/telegram/1/webhook");
        assertThat(s.withWebhook("https://b.example/telegram/1/webhook", "").webhookFor("1"))
                .isEqualTo("https://b.example/telegram/1/webhook");
    }

    @Test
    void theShippedConfigurationHasTheSectionCommentedOut() throws Exception {
        Path shipped = Path.of("..", "config", "pulsebus.toml");
        String text = Files.readString(shipped);
        assertThat(text).contains("# [adapters.telegram]");
        assertThat(ServerConfig.load(shipped, false, Map.of()).platformSettings(TelegramSettings.class)).isEmpty();
        int start = text.indexOf("\n# [adapters.telegram]");
        int end = text.indexOf("\n\n", start);
        String telegram = text.substring(start, end < 0 ? text.length() : end).replaceAll("(?m)^# ", "");
        Path file = dir.resolve("pulsebus.toml");
        Files.writeString(file, telegram);
        TelegramSettings s = ServerConfig.load(file, false, Map.of("PULSEBUS_ADAPTERS_TELEGRAM__TOKEN", "1:a")).platformSettings(TelegramSettings.class).get(0);
        assertThat(s).isNotNull();
        assertThat(s.mode()).isEqualTo(TelegramSettings.Mode.POLLING);
        assertThat(s.apiUrl()).isEqualTo(TelegramSettings.DEFAULT_API_URL);
    }
}
