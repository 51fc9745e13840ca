package dev.pulsebus.irc;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;

/**
 * The bot's own flood control, seen on the server side of its socket: a burst of answers arrives whole, in
 * order, and never faster than {@code send_rate} allows. (A scripted server: ngIRCd reads a client's
 * commands at about three a second whatever it sends, which would hide the bot's rate.)
 */
class IrcFloodControlTest {

    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final double RATE = 50;
    private static final int BURST = 5;
    private static final int SLACK = 25;

    @Test
    void twoHundredAnswersArriveWholeInOrderAndWithinTheRate() throws Exception {
        try (FakeIrcServer server = new FakeIrcServer();
             TestBot bot = new TestBot(TestBot.settings("port", Integer.toString(server.port()), "nick", "pulsebus",
                     "channels", "[\"#flood\"]", "send_rate", "50/s burst 5"))) {
            FakeIrcServer.Conn c = server.accept(WAIT);
            c.expect("NICK pulsebus");
            c.expect(l -> l.startsWith("USER pulsebus "), WAIT);
            c.welcome("pulsebus");
            c.expect("JOIN #flood");
            c.send(":alice!a@host PRIVMSG #flood :!lines 200");
            List<FakeIrcServer.Conn.Line> got = new ArrayList<>();
            while (got.size() < 200) {
                got.add(c.await(l -> l.startsWith("PRIVMSG #flood :"), WAIT));
            }
            for (int i = 0; i < 200; i++) {
                assertThat(got.get(i).text()).isEqualTo("PRIVMSG #flood :line " + (i + 1));
            }
            // Token bucket: lines i..j (inclusive) need their count minus the burst in refills, at RATE a second.
            // Slack of 25 lines (half a second) for a reader held up (a GC, a busy machine) that then read
            // several lines at once; a bot without the bucket says all 200 within milliseconds, one at twice
            // the rate is 70 lines over within two seconds.
            for (int i = 0; i < 200; i++) {
                for (int j = i + 1; j < 200; j++) {
                    double seconds = (got.get(j).nanos() - got.get(i).nanos()) / 1e9;
                    int lines = j - i + 1;
                    assertThat(lines).as("lines %d..%d within %.3f s", i + 1, j + 1, seconds)
                            .isLessThanOrEqualTo((int) (BURST + RATE * seconds) + SLACK);
                }
            }
            assertThat(bot.meters.get("pulsebus.irc.lines.sent").functionCounter().count()).isGreaterThanOrEqualTo(200);
        }
    }

    @Test
    void aSendThatDoesNotFitTheQueueFailsAndIsCounted() throws Exception {
        try (FakeIrcServer server = new FakeIrcServer();
             TestBot bot = new TestBot(TestBot.settings("port", Integer.toString(server.port()), "nick", "pulsebus",
                     "send_rate", "1/s burst 1"))) {
            // never welcomed: nothing leaves the queue
            server.accept(WAIT).expect("NICK pulsebus");
            IrcAdapter a = bot.adapter();
            CompletionStage<String> fits = a.say("PRIVMSG", "#q", TestBot.numbered(IrcAdapter.MAX_QUEUED_LINES - 1));
            CompletionStage<String> over = a.say("PRIVMSG", "#q", "one\ntwo");
            assertThat(fits.toCompletableFuture()).isNotDone();
            assertThat(over.toCompletableFuture()).isCompletedExceptionally();
            assertThat(a.queuedLines()).isEqualTo(IrcAdapter.MAX_QUEUED_LINES - 1);
            assertThat(bot.meters.get("pulsebus.irc.dropped.lines").functionCounter().count()).isEqualTo(2);
            CompletionStage<String> last = a.say("PRIVMSG", "#q", "one more fits");
            assertThat(last.toCompletableFuture()).isNotDone();
        }
    }
}
