package dev.pulsebus.irc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulsebus.event.NoticeEvent;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The IRC bot on a real ngIRCd: commands in a channel and a query, mentions, long answers, CTCP, nicks. */
class IrcNgircdTest {

    private static final Duration WAIT = Duration.ofSeconds(10);
    @TempDir
    static Path dir;
    static Ngircd server;
    static TestBot bot;
    static IrcClient alice;

    @BeforeAll
    static void start() throws Exception {
        server = Ngircd.start(dir, false);
        alice = IrcClient.connect(server.port, "alice").join("#test");
        bot = new TestBot(TestBot.settings("port", Integer.toString(server.port), "nick", "pulsebus",
                "channels", "[\"#test\"]"));
        // the bot is in once its JOIN is relayed to the channel
        alice.await(l -> l.command().equals("JOIN") && l.nick().equals("pulsebus"), WAIT);
    }

    @AfterAll
    static void stop() throws Exception {
        if (bot != null) {
            bot.close();
        }
        if (alice != null) {
            alice.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    void answersACommandInTheChannelAndInAQuery() throws Exception {
        alice.privmsg("#test", "!echo hi");
        assertThat(alice.awaitPrivmsg("pulsebus", "#test", WAIT).last()).isEqualTo("hi");

        alice.privmsg("pulsebus", "!echo in private");
        assertThat(alice.awaitPrivmsg("pulsebus", "alice", WAIT).last()).isEqualTo("in private");
    }

    @Test
    void answersACommandAddressedToItsNick() throws Exception {
        alice.privmsg("#test", "pulsebus: echo colon");
        assertThat(alice.awaitPrivmsg("pulsebus", "#test", WAIT).last()).isEqualTo("colon");
        alice.privmsg("#test", "PulseBus, echo comma");
        assertThat(alice.awaitPrivmsg("pulsebus", "#test", WAIT).last()).isEqualTo("comma");
        alice.privmsg("#test", "pulsebus: !echo both");
        assertThat(alice.awaitPrivmsg("pulsebus", "#test", WAIT).last()).isEqualTo("both");
    }

    @Test
    void aNoticeIsDeliveredButNeverAnswered() throws Exception {
        CompletableFuture<NoticeEvent> seen = new CompletableFuture<>();
        try (var sub = bot.bus.subscribe(NoticeEvent.class, seen::complete)) {
            alice.send("NOTICE #test :!echo from a notice");
            NoticeEvent n = seen.get(10, TimeUnit.SECONDS);
            assertThat(n.detailType()).isEqualTo("irc_notice");
            assertThat(n.fields()).containsEntry("text", "!echo from a notice").containsEntry("user_id", "alice")
                    .containsEntry("group_id", "#test");
        }
        alice.privmsg("#test", "!echo after the notice");
        // the first thing the bot says after the notice is the answer to the message, not to the notice
        assertThat(alice.awaitPrivmsg("pulsebus", "#test", WAIT).last()).isEqualTo("after the notice");
    }

    @Test
    void aLongAnswerComesAsWholeLinesWithinTheLimit() throws Exception {
        StringBuilder sb = new StringBuilder();
        String[] pieces = {"é", "€", "😀", "a", "ß", "中"};
        for (int i = 0; sb.toString().getBytes(StandardCharsets.UTF_8).length < 1200; i++) {
            sb.append(pieces[i % pieces.length]);
        }
        String text = sb.toString();
        bot.longText = text;
        alice.privmsg("#test", "!long");
        StringBuilder got = new StringBuilder();
        int lines = 0;
        while (got.length() < text.length()) {
            IrcClient.Received r = alice.awaitReceived(l -> l.command().equals("PRIVMSG")
                    && l.nick().equals("pulsebus"), WAIT);
            assertThat(r.wireBytes()).as("a relayed line, prefix and CR LF included").isLessThanOrEqualTo(512);
            assertThat(r.line().last()).doesNotContain("\uFFFD");
            got.append(r.line().last());
            lines++;
        }
        assertThat(got.toString()).isEqualTo(text);
        assertThat(lines).isGreaterThanOrEqualTo(3);
    }

    @Test
    void answersCtcpVersionWithANotice() throws Exception {
        alice.privmsg("pulsebus", "\u0001VERSION\u0001");
        var answer = alice.await(l -> l.command().equals("NOTICE") && l.nick().equals("pulsebus"), WAIT);
        assertThat(answer.param(0)).isEqualTo("alice");
        assertThat(answer.last()).startsWith("\u0001VERSION PulseBus ").endsWith("\u0001");
    }

    @Test
    void takesAnAlternateNickWhenItsOwnIsInUse() throws Exception {
        try (IrcClient squatter = IrcClient.connect(server.port, "pbtwin");
             TestBot twin = new TestBot(TestBot.settings("port", Integer.toString(server.port), "nick", "pbtwin",
                     "alt_nicks", "[\"pbtwin2\"]", "channels", "[\"#test\"]"))) {
            alice.await(l -> l.command().equals("JOIN") && l.nick().equals("pbtwin2"), WAIT);
            assertThat(twin.adapter().nick()).isEqualTo("pbtwin2");
            alice.privmsg("#test", "pbtwin2: echo twin");
            var answer = alice.await(l -> l.command().equals("PRIVMSG") && l.nick().equals("pbtwin2"), WAIT);
            assertThat(answer.last()).isEqualTo("twin");
            assertThat(squatter.nick).isEqualTo("pbtwin");
        }
    }

    @Test
    void withoutAlternatesAppendsAnUnderscore() throws Exception {
        try (IrcClient squatter = IrcClient.connect(server.port, "pbsolo");
             TestBot solo = new TestBot(TestBot.settings("port", Integer.toString(server.port), "nick", "pbsolo",
                     "channels", "[\"#test\"]"))) {
            alice.await(l -> l.command().equals("JOIN") && l.nick().equals("pbsolo_"), WAIT);
            assertThat(solo.adapter().nick()).isEqualTo("pbsolo_");
            assertThat(squatter.nick).isEqualTo("pbsolo");
        }
    }
}
