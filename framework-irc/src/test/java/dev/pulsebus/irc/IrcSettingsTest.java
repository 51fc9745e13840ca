package dev.pulsebus.irc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pulsebus.config.Config;
import dev.pulsebus.config.ConfigException;
import dev.pulsebus.config.Section;
import dev.pulsebus.platform.PlatformProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code [adapters.irc]} read from a real file: its defaults, and errors naming the file and line. */
class IrcSettingsTest {

    @TempDir
    Path dir;

    private IrcSettings read(String toml) throws Exception {
        return read(toml, PlatformProvider.Deployment.ALONE);
    }

    private IrcSettings read(String toml, PlatformProvider.Deployment deployment) throws Exception {
        Path f = dir.resolve("pulsebus.toml");
        Files.writeString(f, toml);
        IrcProvider p = new IrcProvider();
        try (Config c = Config.builder(f).watch(false).env(Map.of()).build()) {
            return p.read(Section.of(c.snapshot(), "adapters.irc", p.keys(), f.toString()), deployment);
        }
    }

    @Test
    void theProviderIsFoundByServiceLoader() {
        assertThat(ServiceLoader.load(PlatformProvider.class).stream().map(ServiceLoader.Provider::get))
                .anySatisfy(p -> {
                    assertThat(p).isInstanceOf(IrcProvider.class);
                    assertThat(p.name()).isEqualTo("irc");
                });
    }

    @Test
    void readsEveryKeyAndItsDefaults() throws Exception {
        IrcSettings d = read("""
                [adapters.irc]
                enabled = true
                server = "irc.libera.chat"
                """);
        assertThat(d.tls()).isTrue();
        assertThat(d.port()).isEqualTo(6697);
        assertThat(d.nick()).isEqualTo("pulsebus");
        assertThat(d.sendRate()).isEqualTo(IrcSettings.SendRate.DEFAULT);
        assertThat(d.commandPrefix()).isEqualTo("!");
        assertThat(d.channels()).isEmpty();

        IrcSettings s = read("""
                [adapters.irc]
                enabled = true
                server = "irc.example.net"
                tls = false
                nick = "bot"
                alt_nicks = ["bot_", "b0t"]
                sasl_user = "acct"
                sasl_password = "pw"
                password = "serverpw"
                channels = ["#a", "#b secretkey"]
                send_rate = "0.5/s burst 3"
                command_prefix = "."
                """);
        assertThat(s.port()).isEqualTo(6667);
        assertThat(s.altNicks()).containsExactly("bot_", "b0t");
        assertThat(s.saslPassword().reveal()).isEqualTo("pw");
        assertThat(s.password().reveal()).isEqualTo("serverpw");
        assertThat(s.channels()).extracting(IrcSettings.Channel::name).containsExactly("#a", "#b");
        assertThat(s.channels().get(1).key().reveal()).isEqualTo("secretkey");
        assertThat(s.sendRate()).isEqualTo(new IrcSettings.SendRate(0.5, 3));
        assertThat(s.commandPrefix()).isEqualTo(".");
        assertThat(s.toString()).doesNotContain("pw", "secretkey");
    }

    @Test
    void anUnknownKeyIsNamedWithItsFileAndLine() {
        assertThatThrownBy(() -> read("""
                [adapters.irc]
                enabled = true
                server = "irc.example.net"
                nickname = "oops"
                """)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("pulsebus.toml, line 4")
                .hasMessageContaining("unknown setting adapters.irc.nickname")
                .hasMessageContaining("nick");
    }

    @Test
    void aBadPortIsNamedWithItsFileAndLine() {
        assertThatThrownBy(() -> read("""
                [adapters.irc]
                enabled = true
                server = "irc.example.net"

                port = 70000
                """)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("pulsebus.toml, line 5")
                .hasMessageContaining("adapters.irc.port must be between 1 and 65535, was 70000");
    }

    @Test
    void anEmptyNickIsNamedWithItsFileAndLine() {
        assertThatThrownBy(() -> read("""
                [adapters.irc]
                enabled = true
                server = "irc.example.net"
                nick = ""
                """)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("pulsebus.toml, line 4")
                .hasMessageContaining("adapters.irc.nick is empty");
    }

    @Test
    void otherMistakesAreNamedToo() {
        assertThatThrownBy(() -> read("""
                [adapters.irc]
                enabled = true
                """)).hasMessageContaining("adapters.irc.server is not set");
        assertThatThrownBy(() -> read("""
                [adapters.irc]
                server = "irc.example.net"
                send_rate = "fast"
                """)).hasMessageContaining("line 3").hasMessageContaining("adapters.irc.send_rate must be written");
        assertThatThrownBy(() -> read("""
                [adapters.irc]
                server = "irc.example.net"
                send_rate = "0/s"
                """)).hasMessageContaining("adapters.irc.send_rate is out of range");
        assertThatThrownBy(() -> read("""
                [adapters.irc]
                server = "irc.example.net"
                channels = ["nochan"]
                """)).hasMessageContaining("line 3").hasMessageContaining("adapters.irc.channels holds \"nochan\"");
        assertThatThrownBy(() -> read("""
                [adapters.irc]
                server = "irc.example.net"
                sasl_user = "acct"
                """)).hasMessageContaining("sasl_user is set without sasl_password");
        assertThatThrownBy(() -> read("""
                [adapters.irc]
                server = "irc.example.net"
                alt_nicks = ["9lives"]
                """)).hasMessageContaining("not an IRC nick");
        assertThatThrownBy(() -> read("""
                [adapters.irc]
                server = "irc.example.net:6697"
                """)).hasMessageContaining("server must be a host name");
        assertThatThrownBy(() -> read("""
                [adapters.irc]
                enabled = true
                server = "irc.example.net"
                """, new PlatformProvider.Deployment(true, ""))).hasMessageContaining("cluster.enabled");
    }
}
