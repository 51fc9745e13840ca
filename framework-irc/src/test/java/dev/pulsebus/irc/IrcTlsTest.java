package dev.pulsebus.irc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The bot over TLS to ngIRCd with a self-signed certificate, trusted through {@code tls_ca_file}. */
class IrcTlsTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    @TempDir
    Path dir;

    @Test
    void answersOverTlsTrustingItsCaFileOnly() throws Exception {
        try (Ngircd server = Ngircd.start(dir, true)) {
            Path cert = server.cert;
            assertThat(cert).isNotNull();
            // the JDK's own trust store does not know the test's certificate
            try (SSLSocket s = (SSLSocket) IrcAdapter.tlsFactory("").createSocket("localhost", server.tlsPort)) {
                assertThatThrownBy(s::startHandshake).isInstanceOf(SSLHandshakeException.class);
            }
            try (IrcClient alice = IrcClient.connect(server.port, "alice").join("#tls");
                 TestBot bot = new TestBot(TestBot.settings("server", "localhost", "tls", "true",
                         "port", Integer.toString(server.tlsPort), "tls_ca_file", cert.toString(),
                         "nick", "pulsebus", "channels", "[\"#tls\"]"))) {
                alice.await(l -> l.command().equals("JOIN") && l.nick().equals("pulsebus"), WAIT);
                alice.privmsg("#tls", "!echo secure");
                assertThat(alice.awaitPrivmsg("pulsebus", "#tls", WAIT).last()).isEqualTo("secure");
                assertThat(bot.platform.health()).containsEntry("irc:localhost", true);
            }
        }
    }
}
