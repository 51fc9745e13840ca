package dev.pulsebus.irc;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Gauge;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The bot through a restart of its server: it reconnects, rejoins and answers; its lag and meters. */
class IrcReconnectTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path dir;

    /** Says {@code !echo text} in {@code channel} until the bot answers it (a line said before it rejoined is lost). */
    private static void answered(IrcClient client, String channel, String text) throws Exception {
        long until = System.nanoTime() + WAIT.toNanos();
        while (true) {
            client.privmsg(channel, "!echo " + text);
            try {
                client.await(l -> l.command().equals("PRIVMSG") && l.nick().equals("pulsebus")
                        && l.last().equals(text), Duration.ofSeconds(1));
                return;
            } catch (AssertionError e) {
                if (System.nanoTime() > until) {
                    throw new AssertionError("the bot did not answer \"!echo " + text + "\" within " + WAIT, e);
                }
            }
        }
    }

    @Test
    void reconnectsAndRejoinsAfterTheServerRestarts() throws Exception {
        try (Ngircd server = Ngircd.start(dir, false);
             TestBot bot = new TestBot(TestBot.settings("port", Integer.toString(server.port), "nick", "pulsebus",
                     "channels", "[\"#re\"]"))) {
            try (IrcClient alice = IrcClient.connect(server.port, "alice").join("#re")) {
                answered(alice, "#re", "before");
            }
            Gauge lag = bot.meters.get("pulsebus.irc.lag").gauge();
            long until = System.nanoTime() + WAIT.toNanos();
            while (Double.isNaN(lag.value()) && System.nanoTime() < until) {
                Thread.sleep(10);
            }
            assertThat(lag.value()).as("the first PING's round trip, in seconds").isBetween(0.0, 20.0);

            server.kill();
            server.start();
            try (IrcClient alice = IrcClient.connect(server.port, "alice").join("#re")) {
                answered(alice, "#re", "after");
            }
            assertThat(bot.meters.get("pulsebus.irc.connects").functionCounter().count()).isEqualTo(2);
            assertThat(bot.platform.health()).containsEntry("irc:127.0.0.1", true);
            bot.close();
            assertThat(bot.meters.find("pulsebus.irc.lag").gauge()).as("meters removed at stop").isNull();
            assertThat(bot.meters.find("pulsebus.irc.connects").functionCounter()).isNull();
        }
    }
}
