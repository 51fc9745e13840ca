package dev.pulsebus.irc;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * SASL PLAIN against a scripted server that follows the example exchange of the IRCv3 SASL 3.1 specification
 * (ircv3.net/specs/extensions/sasl-3.1, "Example"): user {@code jilles}, password {@code sesame}. ngIRCd does not
 * speak SASL. The bot sends an empty authorization identity ({@code \0jilles\0sesame}; RFC 4616 lets it be
 * left out when it is the authentication identity), where the spec's client repeats it
 * ({@code jilles\0jilles\0sesame}, {@code amlsbGVzAGppbGxlcwBzZXNhbWU=}); both log in as jilles.
 */
class IrcSaslTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    private static TestBot bot(FakeIrcServer server) throws Exception {
        return new TestBot(TestBot.settings("port", Integer.toString(server.port()), "nick", "jilles",
                "sasl_user", "jilles", "sasl_password", "sesame", "channels", "[\"#sasl\"]"));
    }

    @Test
    void logsInWithSaslPlainBeforeRegistering() throws Exception {
        try (FakeIrcServer server = new FakeIrcServer(); TestBot bot = bot(server)) {
            FakeIrcServer.Conn c = server.accept(WAIT);
            c.expect("CAP LS 302");
            c.expect("NICK jilles");
            c.expect(l -> l.startsWith("USER jilles "), WAIT);
            c.send(":jaguar.test CAP * LS :multi-prefix sasl");
            c.expect("CAP REQ :sasl");
            c.send(":jaguar.test CAP jilles ACK :sasl");
            c.expect("AUTHENTICATE PLAIN");
            c.send("AUTHENTICATE +");
            c.expect("AUTHENTICATE AGppbGxlcwBzZXNhbWU="); // base64 of "\0jilles\0sesame"
            c.send(":jaguar.test 900 jilles jilles!jilles@localhost.stack.nicht jilles :You are now logged in as "
                    + "jilles");
            c.send(":jaguar.test 903 jilles :SASL authentication successful");
            c.expect("CAP END");
            c.welcome("jilles");
            c.expect("JOIN #sasl");
            c.await(l -> l.startsWith("PING :"), WAIT);
            assertThat(bot.adapter().up()).isTrue();
            assertThat(bot.adapter().warnings()).containsExactly("irc:127.0.0.1 sends its password without TLS "
                    + "(adapters.irc.tls = false)");
            c.send(":alice!a@host PRIVMSG #sasl :!echo logged in");
            c.await("PRIVMSG #sasl :logged in"::equals, WAIT);
        }
    }

    @Test
    void aRefusedLoginGivesUpSayingWhy() throws Exception {
        try (FakeIrcServer server = new FakeIrcServer(); TestBot bot = bot(server)) {
            FakeIrcServer.Conn c = server.accept(WAIT);
            c.expect("CAP LS 302");
            c.send(":jaguar.test CAP * LS * :multi-prefix");
            c.send(":jaguar.test CAP * LS :sasl=PLAIN,EXTERNAL");
            c.await("CAP REQ :sasl"::equals, WAIT);
            c.send(":jaguar.test CAP jilles ACK :sasl");
            c.expect("AUTHENTICATE PLAIN");
            c.send("AUTHENTICATE +");
            c.expect(l -> l.startsWith("AUTHENTICATE "), WAIT);
            c.send(":jaguar.test 904 jilles :SASL authentication failed");
            c.await("QUIT :bye"::equals, WAIT);
            c.close();
            long until = System.nanoTime() + WAIT.toNanos();
            while (bot.adapter().warnings().size() < 2 && System.nanoTime() < until) {
                Thread.sleep(10);
            }
            assertThat(bot.adapter().warnings().get(0))
                    .contains("gave up: SASL PLAIN login of jilles refused (904 SASL authentication failed)");
            assertThat(bot.adapter().up()).isFalse();
            assertThat(bot.platform.health()).containsEntry("irc:127.0.0.1", false);
            // it gave up: no second attempt, which would come within 0.5 s of a reconnect
            assertThat(server.acceptOrNull(Duration.ofSeconds(2))).isNull();
        }
    }

    @Test
    void aServerWithoutSaslIsNotLoggedInto() throws Exception {
        try (FakeIrcServer server = new FakeIrcServer(); TestBot bot = bot(server)) {
            FakeIrcServer.Conn c = server.accept(WAIT);
            c.expect("CAP LS 302");
            c.send(":jaguar.test CAP * LS :multi-prefix away-notify");
            c.await("QUIT :bye"::equals, WAIT);
            assertThat(c.lines.stream().map(FakeIrcServer.Conn.Line::text))
                    .noneMatch(l -> l.startsWith("AUTHENTICATE"));
            long until = System.nanoTime() + WAIT.toNanos();
            while (bot.adapter().warnings().size() < 2 && System.nanoTime() < until) {
                Thread.sleep(10);
            }
            assertThat(bot.adapter().warnings().get(0)).contains("gave up: the server does not offer SASL");
        }
    }
}
