package dev.pulsebus.irc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulsebus.event.Message;
import dev.pulsebus.event.Segment;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Lines read (RFC 1459/2812 with IRCv3 tags), text cut into lines, commands as the router reads them. */
class IrcProtocolTest {

    @Test
    void readsTagsPrefixCommandAndTrailing() {
        IrcLine l = IrcLine.parse("@time=2026-01-02T03:04:05.000Z;msgid=abc;x=a\\sb\\:c :nick!user@host PRIVMSG "
                + "#chan :hello there :)");
        assertThat(l).isNotNull();
        assertThat(l.tags()).isEqualTo(Map.of("time", "2026-01-02T03:04:05.000Z", "msgid", "abc", "x", "a b;c"));
        assertThat(l.prefix()).isEqualTo("nick!user@host");
        assertThat(l.nick()).isEqualTo("nick");
        assertThat(l.fromUser()).isTrue();
        assertThat(l.command()).isEqualTo("PRIVMSG");
        assertThat(l.params()).containsExactly("#chan", "hello there :)");

        IrcLine ping = IrcLine.parse("PING :irc.test");
        assertThat(ping.prefix()).isEmpty();
        assertThat(ping.params()).containsExactly("irc.test");
        IrcLine numeric = IrcLine.parse(":irc.test 005 bot CHANTYPES=# NICKLEN=30 :are supported");
        assertThat(numeric.fromUser()).isFalse();
        assertThat(numeric.params()).containsExactly("bot", "CHANTYPES=#", "NICKLEN=30", "are supported");
        assertThat(IrcLine.parse("")).isNull();
        assertThat(IrcLine.parse(":only.a.prefix")).isNull();
    }

    @Test
    void cutsAtSpacesWithinTheBudgetAndNeverInsideACharacter() {
        assertThat(IrcText.split("aaa bbb ccc", 7)).containsExactly("aaa bbb", "ccc");
        assertThat(IrcText.split("one\r\ntwo\n\nthree\rfour", 100)).containsExactly("one", "two", "three", "four");
        assertThat(IrcText.split("a\u0001b\0c", 100)).containsExactly("abc");
        String emoji = "😀".repeat(10); // 4 bytes each
        List<String> pieces = IrcText.split(emoji, 10);
        assertThat(pieces).containsExactly("😀😀", "😀😀", "😀😀", "😀😀", "😀😀");
        String mixed = "é€中a😀".repeat(50);
        List<String> cut = IrcText.split(mixed, 64);
        assertThat(String.join("", cut)).isEqualTo(mixed);
        assertThat(cut).allSatisfy(p -> assertThat(p.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(64));
    }

    @Test
    void aLineToAChannelLeavesRoomForTheRelayedPrefix() {
        int budget = IrcText.budget("PRIVMSG", "#chan", "pulsebus");
        assertThat(budget).isBetween(400, 450);
        int relayed = 1 + "pulsebus".length() + 1 + 10 + 1 + 63 + 1 + "PRIVMSG #chan :".length() + budget + 2;
        assertThat(relayed).isLessThanOrEqualTo(512);
    }

    @Test
    void theCommandPrefixAndTheBotsNickBecomeTheRoutersForm() throws Exception {
        IrcAdapter a = new IrcAdapter(TestBot.read(TestBot.settings("nick", "pulsebus")), IrcAdapter.Timing.DEFAULT,
                java.time.Clock.systemUTC(), new io.micrometer.core.instrument.simple.SimpleMeterRegistry());
        assertThat(a.commandForm("!echo hi", "pulsebus")).isEqualTo(Message.text("/echo hi"));
        assertThat(a.commandForm("! not a command", "pulsebus")).isEqualTo(Message.text("! not a command"));
        assertThat(a.commandForm("just talk", "pulsebus")).isEqualTo(Message.text("just talk"));
        Message mention = Message.of(new Segment.Mention("pulsebus"), new Segment.Text("/echo hi"));
        assertThat(a.commandForm("pulsebus: echo hi", "pulsebus")).isEqualTo(mention);
        assertThat(a.commandForm("PulseBus, !echo hi", "pulsebus")).isEqualTo(mention);
        assertThat(a.commandForm("pulsebus_: echo hi", "pulsebus_")).isEqualTo(mention);
        assertThat(mention.commandText("pulsebus")).isEqualTo("/echo hi");
    }

    @Test
    void theBucketLetsABurstThenTheRate() {
        TokenBucket b = new TokenBucket(new IrcSettings.SendRate(2, 3), 0);
        for (int i = 0; i < 3; i++) {
            assertThat(b.nanosUntilToken(0)).isZero();
            b.take();
        }
        assertThat(b.nanosUntilToken(0)).isEqualTo(500_000_000L);
        assertThat(b.nanosUntilToken(500_000_000L)).isZero();
        b.take();
        assertThat(b.nanosUntilToken(10_000_000_000L)).isZero(); // refilled, but to the burst only
        for (int i = 0; i < 3; i++) {
            b.take();
        }
        assertThat(b.nanosUntilToken(10_000_000_000L)).isEqualTo(500_000_000L);
    }
}
