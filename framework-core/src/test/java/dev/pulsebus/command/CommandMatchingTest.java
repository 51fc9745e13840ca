package dev.pulsebus.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class CommandMatchingTest {

    private final List<String> calls = new CopyOnWriteArrayList<>();

    private CommandRouter router(CommandRouter.Builder b) {
        CommandRouter r = b.build();
        r.register(Command.named("echo").alias("say").usage("/echo <text>").help("Repeats the text")
                .handler(c -> calls.add(c.label() + ":" + c.args())));
        return r;
    }

    @Test
    void defaultPrefixRunsTheCommandAndPlainTextIsNotACommand() {
        CommandRouter r = router(CommandRouter.builder());

        assertThat(r.route(Msg.of("/echo hi there"))).isEqualTo(Outcome.OK);
        assertThat(r.route(Msg.of("echo hi"))).isEqualTo(Outcome.NOT_COMMAND);
        assertThat(r.route(Msg.of("!echo hi"))).isEqualTo(Outcome.NOT_COMMAND);
        assertThat(r.route(Msg.of(""))).isEqualTo(Outcome.NOT_COMMAND);
        assertThat(r.route(Msg.of("/"))).isEqualTo(Outcome.NOT_COMMAND);
        assertThat(r.route(Msg.of("   /echo leading spaces"))).isEqualTo(Outcome.OK);
        assertThat(calls).containsExactly("echo:[hi, there]", "echo:[leading, spaces]");
    }

    @Test
    void severalPrefixesIncludingNonAsciiAndLongestFirst() {
        CommandRouter r = router(CommandRouter.builder().prefixes("/", "!", "。", "!!"));

        r.route(Msg.of("/echo a"));
        r.route(Msg.of("!echo b"));
        r.route(Msg.of("。echo c"));
        r.route(Msg.of("!!echo d"));
        assertThat(r.route(Msg.of("、echo e"))).isEqualTo(Outcome.NOT_COMMAND);

        assertThat(calls).containsExactly("echo:[a]", "echo:[b]", "echo:[c]", "echo:[d]");
    }

    @Test
    void spaceAfterPrefixOnlyWhenAllowed() {
        assertThat(router(CommandRouter.builder()).route(Msg.of("/ echo x"))).isEqualTo(Outcome.NOT_COMMAND);
        assertThat(router(CommandRouter.builder().spaceAfterPrefix(true)).route(Msg.of("/  echo x")))
                .isEqualTo(Outcome.OK);
        assertThat(calls).containsExactly("echo:[x]");
    }

    @Test
    void aliasesFindTheSameCommandAndTheLabelIsWhatWasTyped() {
        CommandRouter r = router(CommandRouter.builder());

        assertThat(r.route(Msg.of("/say hello"))).isEqualTo(Outcome.OK);
        assertThat(calls).containsExactly("say:[hello]");
    }

    @Test
    void caseSensitiveByDefaultInsensitiveWhenAsked() {
        CommandRouter strict = router(CommandRouter.builder());
        assertThat(strict.route(Msg.of("/ECHO x"))).isEqualTo(Outcome.UNKNOWN);

        CommandRouter relaxed = router(CommandRouter.builder().caseInsensitive(true));
        relaxed.register(Command.named("Straße").handler(c -> calls.add("strasse")));
        assertThat(relaxed.route(Msg.of("/ECHO x"))).isEqualTo(Outcome.OK);
        assertThat(relaxed.route(Msg.of("/sAy y"))).isEqualTo(Outcome.OK);
        assertThat(relaxed.route(Msg.of("/STRASSE"))).isEqualTo(Outcome.UNKNOWN);
        assertThat(relaxed.route(Msg.of("/STRAßE"))).isEqualTo(Outcome.OK);
        assertThat(calls).containsExactly("ECHO:[x]", "sAy:[y]", "strasse");
    }

    @Test
    void requireMentionIgnoresCommandsThatDoNotMentionTheBot() {
        CommandRouter r = router(CommandRouter.builder().requireMention(true));

        assertThat(r.route(Msg.of("/echo x"))).isEqualTo(Outcome.NOT_COMMAND);
        assertThat(r.route(Msg.of("/echo y").mentioning())).isEqualTo(Outcome.OK);
        assertThat(calls).containsExactly("echo:[y]");
    }

    @Test
    void unknownCommandIsSilentByDefaultAndCounted() {
        io.micrometer.core.instrument.simple.SimpleMeterRegistry reg =
                new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
        CommandRouter r = router(CommandRouter.builder().meterRegistry(reg));
        Msg m = Msg.of("/nosuchcommand now");

        assertThat(r.route(m)).isEqualTo(Outcome.UNKNOWN);
        assertThat(m.replies).isEmpty();
        assertThat(reg.get("pulsebus.commands.misses").functionCounter().count()).isEqualTo(1);
    }

    @Test
    void unknownCommandIsAnsweredWhenAsked() {
        CommandRouter r = router(CommandRouter.builder().replyToUnknown(true));
        Msg m = Msg.of("/nosuch");

        assertThat(r.route(m)).isEqualTo(Outcome.UNKNOWN);
        assertThat(m.replies).containsExactly("Unknown command /nosuch. Try /help.");
    }

    @Test
    void aPatternCommandTakesAPrefixedMessageWithoutAnUnknownAnswer() {
        CommandRouter r = router(CommandRouter.builder().replyToUnknown(true));
        r.register(Command.named("shout").pattern("/shout (.+)").handler(c -> calls.add("shout " + c.args())));
        r.register(Command.named("thanks").keyword("/thanks").handler(c -> calls.add("thanks")));
        Msg byPattern = Msg.of("/shout hey");
        Msg byKeyword = Msg.of("/thanks bot");

        assertThat(r.route(byPattern)).isEqualTo(Outcome.OK);
        assertThat(r.route(byKeyword)).isEqualTo(Outcome.OK);
        assertThat(byPattern.replies).isEmpty();
        assertThat(byKeyword.replies).isEmpty();
        assertThat(calls).containsExactly("shout [hey]", "thanks");
        assertThat(r.answersUnknown()).isTrue();
    }

    @Test
    void quotesGroupWordsAndEscapesWork() {
        CommandRouter r = router(CommandRouter.builder());

        r.route(Msg.of("/say \"hello world\" 3"));
        r.route(Msg.of("/say \"she said \\\"hi\\\"\" a\"b c\"d"));
        r.route(Msg.of("/say \"\""));

        assertThat(calls).containsExactly("say:[hello world, 3]", "say:[she said \"hi\", ab cd]", "say:[]");
    }

    @Test
    void unterminatedQuoteIsABadArgumentWithTheUsage() {
        CommandRouter r = router(CommandRouter.builder());
        Msg m = Msg.of("/echo \"open");

        assertThat(r.route(m)).isEqualTo(Outcome.BAD_ARGS);
        assertThat(m.replies).containsExactly("a quote is not closed. Usage: /echo <text>");
    }

    @Test
    void typedArgumentsExplainWhatIsWrong() {
        CommandRouter r = CommandRouter.builder().build();
        List<Long> rolled = new CopyOnWriteArrayList<>();
        r.register(Command.named("roll").usage("/roll <sides>").handler(c -> rolled.add(c.argLong(0))));

        Msg bad = Msg.of("/roll abc");
        Msg missing = Msg.of("/roll");
        assertThat(r.route(bad)).isEqualTo(Outcome.BAD_ARGS);
        assertThat(r.route(missing)).isEqualTo(Outcome.BAD_ARGS);
        assertThat(r.route(Msg.of("/roll 20"))).isEqualTo(Outcome.OK);

        assertThat(bad.replies).containsExactly("argument 1: expected a number, got 'abc'. Usage: /roll <sides>");
        assertThat(missing.replies).containsExactly("argument 1 is missing. Usage: /roll <sides>");
        assertThat(rolled).containsExactly(20L);
    }

    @Test
    void typedAccessorsAndRestOfLine() {
        CommandRouter r = CommandRouter.builder().build();
        List<Object> seen = new CopyOnWriteArrayList<>();
        r.register(Command.named("calc").handler(c -> {
            seen.add(c.argInt(0));
            seen.add(c.argDouble(1));
            seen.add(c.arg(5, "none"));
            seen.add(c.argCount());
            seen.add(c.rest());
            seen.add(c.command());
        }));

        r.route(Msg.of("/calc  7 2.5   \"x y\""));

        assertThat(seen).containsExactly(7, 2.5, "none", 3, "7 2.5   \"x y\"", "calc");
    }

    @Test
    void nonFiniteNumbersAreRejected() {
        CommandRouter r = CommandRouter.builder().build();
        r.register(Command.named("d").handler(c -> c.argDouble(0)));
        Msg m = Msg.of("/d NaN");
        assertThat(r.route(m)).isEqualTo(Outcome.BAD_ARGS);
        assertThat(m.replies.get(0)).startsWith("argument 1: expected a number, got 'NaN'");
    }

    @Test
    void subCommandsRouteByTheirOwnWord() {
        CommandRouter r = CommandRouter.builder().build();
        r.register(Command.named("kv").help("Key-value store")
                .sub(Command.named("get").usage("/kv get <key>").handler(c -> calls.add("get " + c.arg(0))))
                .sub(Command.named("set").alias("put").handler(c -> calls.add("set " + c.arg(0) + "=" + c.rest()))));

        assertThat(r.route(Msg.of("/kv get colour"))).isEqualTo(Outcome.OK);
        assertThat(r.route(Msg.of("/kv put colour dark blue"))).isEqualTo(Outcome.OK);
        Msg bare = Msg.of("/kv");
        Msg wrong = Msg.of("/kv drop colour");
        assertThat(r.route(bare)).isEqualTo(Outcome.BAD_ARGS);
        assertThat(r.route(wrong)).isEqualTo(Outcome.BAD_ARGS);

        assertThat(calls).containsExactly("get colour", "set colour=colour dark blue");
        assertThat(bare.replies).containsExactly("/kv needs one of: get, set");
        assertThat(wrong.replies).containsExactly("/kv needs one of: get, set");
    }

    @Test
    void subCommandWithParentHandlerFallsBackToTheParent() {
        CommandRouter r = CommandRouter.builder().build();
        r.register(Command.named("remind").handler(c -> calls.add("remind " + c.args()))
                .sub(Command.named("list").handler(c -> calls.add("list"))));

        r.route(Msg.of("/remind list"));
        r.route(Msg.of("/remind me tomorrow"));

        assertThat(calls).containsExactly("list", "remind [me, tomorrow]");
    }

    @Test
    void regexAndKeywordCommandsRunWithoutAPrefix() {
        CommandRouter r = CommandRouter.builder().caseInsensitive(true).build();
        r.register(Command.named("dice").pattern("(\\d+)d(\\d+)").handler(c -> calls.add("dice " + c.args())));
        r.register(Command.named("greet").keyword("Good Morning").handler(c -> calls.add("greet " + c.rest())));

        assertThat(r.route(Msg.of("2d6"))).isEqualTo(Outcome.OK);
        assertThat(r.route(Msg.of("well, GOOD MORNING all"))).isEqualTo(Outcome.OK);
        assertThat(r.route(Msg.of("2d6 please"))).isEqualTo(Outcome.NOT_COMMAND);
        assertThat(r.route(Msg.of("/dice"))).isEqualTo(Outcome.OK); // also by name
        assertThat(calls).containsExactly("dice [2, 6]", "greet well, GOOD MORNING all", "dice []");
    }

    @Test
    void namesAndAliasesAreUniqueUntilUnregistered() {
        CommandRouter r = router(CommandRouter.builder());

        assertThatThrownBy(() -> r.register(Command.named("say").handler(c -> { })))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'say' is already taken by /echo");
        CommandRouter.Registration weather = r.register(Command.named("weather").handler(c -> calls.add("w1")));
        weather.unregister();
        weather.unregister();
        assertThat(r.route(Msg.of("/weather"))).isEqualTo(Outcome.UNKNOWN);
        r.register(Command.named("weather").handler(c -> calls.add("w2")));
        r.route(Msg.of("/weather"));
        assertThat(calls).containsExactly("w2");
    }

    @Test
    void commandNeedsAHandlerOrSubCommandsAndOneWordNames() {
        CommandRouter r = CommandRouter.builder().build();
        assertThatThrownBy(() -> r.register(Command.named("empty")))
                .hasMessageContaining("needs a handler or sub-commands");
        assertThatThrownBy(() -> Command.named("two words")).hasMessageContaining("one word");
        assertThatThrownBy(() -> CommandRouter.builder().prefixes().build())
                .hasMessageContaining("at least one command prefix");
    }

    @Test
    void helpListsVisibleCommandsByGroupAndDescribesOne() {
        CommandRouter r = router(CommandRouter.builder());
        r.register(Command.named("weather").alias("w").usage("/weather <city>").help("Today's weather").group("fun")
                .handler(c -> { }));
        r.register(Command.named("secret").hidden().handler(c -> { }));
        r.register(Command.named("kv").help("Key-value store")
                .sub(Command.named("get").usage("/kv get <key>").help("Read a key").handler(c -> { })));

        Msg list = Msg.of("/help");
        r.route(list);
        Msg one = Msg.of("/help /w");
        r.route(one);
        Msg sub = Msg.of("/help kv");
        r.route(sub);
        Msg none = Msg.of("/help nosuch");
        r.route(none);

        assertThat(list.replies).containsExactly("""
                Commands:
                [general]
                  /help [command] - Show the commands, or how to use one
                  /echo <text> - Repeats the text
                  /kv - Key-value store
                [fun]
                  /weather <city> - Today's weather
                Type /help <command> for details.""");
        assertThat(one.replies).containsExactly("/weather <city>\nToday's weather\naliases: /w");
        assertThat(sub.replies).containsExactly("/kv\nKey-value store\nsub-commands:\n  /kv get <key> - Read a key");
        assertThat(none.replies).containsExactly("There is no command /nosuch.");
    }

    @Test
    void helpAnswersInChinese() {
        CommandRouter r = router(CommandRouter.builder());
        Msg m = Msg.of("/help").locale(Locale.SIMPLIFIED_CHINESE);
        r.route(m);
        assertThat(m.replies.get(0)).startsWith("可用命令：").endsWith("输入 /help <命令> 查看详情。")
                .contains("/help [command] - 列出命令，或查看某个命令的用法");
    }

    @Test
    void permissionRefusalIsAnAnswerNotAnException() {
        CommandRouter r = CommandRouter.builder().build();
        r.register(Command.named("ban").permission(Permissions.roles(SenderRole.ADMIN, SenderRole.OWNER))
                .handler(c -> calls.add("ban")));
        r.register(Command.named("shutdown").permission(Permissions.users(java.util.Set.of("test:root")))
                .handler(c -> calls.add("shutdown")));

        Msg member = Msg.of("/ban spammer");
        assertThat(r.route(member)).isEqualTo(Outcome.DENIED);
        assertThat(r.route(Msg.of("/ban spammer").role(SenderRole.OWNER))).isEqualTo(Outcome.OK);
        assertThat(r.route(Msg.of("/shutdown"))).isEqualTo(Outcome.DENIED);
        assertThat(r.route(new Msg("/shutdown", "root", "g1"))).isEqualTo(Outcome.OK);
        Msg zh = Msg.of("/ban x").locale(Locale.CHINESE);
        r.route(zh);

        assertThat(member.replies).containsExactly("You are not allowed to use /ban.");
        assertThat(zh.replies).containsExactly("你没有使用 /ban 的权限。");
        assertThat(calls).containsExactly("ban", "shutdown");
    }

    @Test
    void userPermissionsNameThePlatformAndABareIdIsRefusedSayingHowToWriteIt() {
        CommandRouter r = CommandRouter.builder().build();
        r.register(Command.named("op").permission(Permissions.users(java.util.Set.of("onebot11:10001", "http:ann")))
                .handler(c -> calls.add("op " + c.source().userId())));
        r.register(Command.named("tg").permission(Permissions.users("telegram", java.util.Set.of("10001")))
                .handler(c -> calls.add("tg " + c.source().userId())));

        assertThat(r.route(new Msg("/op", "10001", "g1").platform("onebot11"))).isEqualTo(Outcome.OK);
        assertThat(r.route(new Msg("/op", "10001", "g1").platform("http"))).isEqualTo(Outcome.DENIED);
        assertThat(r.route(new Msg("/op", "10001", "g1").platform("telegram"))).isEqualTo(Outcome.DENIED);
        assertThat(r.route(new Msg("/op", "ann", "g1").platform("http"))).isEqualTo(Outcome.OK);
        assertThat(r.route(new Msg("/op", "ann", "g1").platform("onebot11"))).isEqualTo(Outcome.DENIED);
        assertThat(r.route(new Msg("/tg", "10001", "g1").platform("telegram"))).isEqualTo(Outcome.OK);
        assertThat(r.route(new Msg("/tg", "10001", "g1").platform("onebot11"))).isEqualTo(Outcome.DENIED);
        assertThat(calls).containsExactly("op 10001", "op ann", "tg 10001");

        assertThatThrownBy(() -> Permissions.users(java.util.Set.of("onebot11:1", "10001")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("\"10001\" does not name its platform")
                .hasMessageContaining("\"onebot11:10001\", \"telegram:10001\" or \"http:10001\"");
        assertThatThrownBy(() -> Permissions.users(java.util.Set.of(":10001"))).hasMessageContaining("platform");
        assertThatThrownBy(() -> Permissions.users(java.util.Set.of("telegram:"))).hasMessageContaining("platform");
        assertThatThrownBy(() -> Permissions.users("", java.util.Set.of("10001")))
                .hasMessageContaining("is not a platform's name");
    }

    @Test
    void failingHandlerIsAnsweredCountedAndDoesNotBreakTheRouter() {
        io.micrometer.core.instrument.simple.SimpleMeterRegistry reg =
                new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
        CommandRouter r = router(CommandRouter.builder().meterRegistry(reg));
        r.register(Command.named("boom").handler(c -> {
            throw new IllegalStateException("kaput");
        }));
        Msg m = Msg.of("/boom");

        assertThat(r.route(m)).isEqualTo(Outcome.ERROR);
        assertThat(r.route(Msg.of("/echo still works"))).isEqualTo(Outcome.OK);
        assertThat(m.replies).containsExactly("Sorry, /boom failed.");
        assertThat(reg.get("pulsebus.commands.calls").tag("command", "boom").tag("outcome", "error")
                .functionCounter().count()).isEqualTo(1);
        assertThat(reg.get("pulsebus.commands.calls").tag("command", "echo").tag("outcome", "ok")
                .functionCounter().count()).isEqualTo(1);
    }
}
