package dev.pulsebus.irc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulsebus.event.GroupMessage;
import dev.pulsebus.event.PrivateMessage;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * What a scripted server shows of the connection: a PING left unanswered makes the bot reconnect, the
 * server's PING is answered, IRCv3 tags give an event its time and id, and CTCP ACTION is a message.
 */
class IrcConnectionTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    private static FakeIrcServer.Conn registered(FakeIrcServer server) throws Exception {
        FakeIrcServer.Conn c = server.accept(WAIT);
        c.expect("NICK pulsebus");
        c.expect(l -> l.startsWith("USER pulsebus "), WAIT);
        c.welcome("pulsebus");
        c.expect("JOIN #c");
        return c;
    }

    @Test
    void aPingWithoutPongMakesItReconnectAndRejoin() throws Exception {
        IrcAdapter.Timing quick = new IrcAdapter.Timing(Duration.ofMillis(200), Duration.ofMillis(500),
                Duration.ofSeconds(5));
        try (FakeIrcServer server = new FakeIrcServer();
             TestBot bot = new TestBot(TestBot.read(TestBot.settings("port", Integer.toString(server.port()),
                     "channels", "#c")), quick)) {
            FakeIrcServer.Conn first = registered(server);
            String ping = first.await(l -> l.startsWith("PING :"), WAIT).text();
            first.send(":irc.test PONG irc.test :" + ping.substring("PING :".length()));
            first.await(l -> l.startsWith("PING :"), WAIT); // the next, 200 ms later: left unanswered
            FakeIrcServer.Conn second = registered(server);
            assertThat(first.await("<closed>"::equals, WAIT)).isNotNull();
            second.send("PING :are-you-there");
            second.await("PONG :are-you-there"::equals, WAIT);
            assertThat(bot.meters.get("pulsebus.irc.connects").functionCounter().count()).isEqualTo(2);
            assertThat(bot.meters.get("pulsebus.irc.lag").gauge().value()).isBetween(0.0, 5.0);
        }
    }

    @Test
    void tagsGiveTheEventItsTimeAndIdAndActionIsAMessage() throws Exception {
        try (FakeIrcServer server = new FakeIrcServer();
             TestBot bot = new TestBot(TestBot.settings("port", Integer.toString(server.port()), "channels", "#c"))) {
            CompletableFuture<GroupMessage> group = new CompletableFuture<>();
            CompletableFuture<PrivateMessage> query = new CompletableFuture<>();
            try (var g = bot.bus.subscribe(GroupMessage.class, group::complete);
                 var p = bot.bus.subscribe(PrivateMessage.class, query::complete)) {
                FakeIrcServer.Conn c = registered(server);
                c.send("@time=2026-05-06T07:08:09.123Z;msgid=m-42;+draft/x=y :Alice!al@example.net PRIVMSG #C"
                        + " :hello everyone");
                GroupMessage m = group.get(10, TimeUnit.SECONDS);
                assertThat(m.id()).isEqualTo("m-42");
                assertThat(m.time()).isEqualTo(Instant.parse("2026-05-06T07:08:09.123Z"));
                assertThat(m.groupId()).isEqualTo("#c");
                assertThat(m.userId()).isEqualTo("Alice");
                assertThat(m.message().plainText()).isEqualTo("hello everyone");
                assertThat(m.extra()).containsEntry("prefix", "Alice!al@example.net").containsEntry("target", "#C");

                c.send(":bob!b@host PRIVMSG pulsebus :\u0001ACTION waves\u0001");
                PrivateMessage a = query.get(10, TimeUnit.SECONDS);
                assertThat(a.subType()).isEqualTo("action");
                assertThat(a.userId()).isEqualTo("bob");
                assertThat(a.message().plainText()).isEqualTo("waves");
            }
        }
    }
}
