package dev.pulsebus.bench.router;

import dev.pulsebus.command.Command;
import dev.pulsebus.command.CommandRouter;
import dev.pulsebus.command.CommandSource;
import dev.pulsebus.command.Outcome;
import dev.pulsebus.command.Scope;
import dev.pulsebus.internal.CallCosts;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The router suite: 100 commands registered (as a bot with many modules would have), messages that hit
 * one, miss (plain text), or name no command. Peers on the same texts: the usual hand-written router
 * ({@code substring} + {@code split} + a {@code HashMap}) and one regular expression alternating over
 * the 100 names. Method names follow {@code <row>__<peer>}; see JmhSuite.
 */
@State(org.openjdk.jmh.annotations.Scope.Benchmark)
public class RouterBench {

    static final int COMMANDS = 100;
    /** More users than a control table holds (4096), so the tables churn at their cap. */
    static final int USERS = 10_000;
    /** Chats with a pending ask in {@code command_miss_with_asks}: none is the measured message's. */
    static final int ASKING_CHATS = 4096;

    private CommandRouter router;
    /** The same commands, a module's, with their costs measured at the default sampling. */
    private CommandRouter costed;
    private Map<String, Consumer<String[]>> naive;
    private Pattern alternation;
    private Source hit;
    private Source miss;
    private Source unknown;
    private Source[] checkedHits;
    private int next;
    private AsksFixture asks;

    /** A message as the pipeline would hand it over: fields, no work. */
    static final class Source implements CommandSource {
        private static final CompletionStage<String> SENT = CompletableFuture.completedFuture("sent");
        private final String text;
        private final String user;

        Source(String text, String user) {
            this.text = text;
            this.user = user;
        }

        @Override
        public String text() {
            return text;
        }

        @Override
        public String userId() {
            return user;
        }

        @Override
        public String chatId() {
            return "group-1";
        }

        @Override
        public CompletionStage<String> reply(String reply) {
            return SENT;
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        asks.close();
    }

    @Setup(Level.Trial)
    public void setUp(Blackhole bh) throws Exception {
        asks = new AsksFixture(ASKING_CHATS);
        router = CommandRouter.builder().meterRegistry(new SimpleMeterRegistry()).build();
        naive = new HashMap<>();
        StringBuilder names = new StringBuilder();
        for (int i = 0; i < COMMANDS; i++) {
            String name = "cmd" + i;
            router.register(Command.named(name).handler(call -> bh.consume(call.rest())));
            naive.put(name, args -> bh.consume(args));
            names.append(name).append('|');
        }
        router.register(Command.named("bench").handler(call -> bh.consume(call.argInt(0))));
        costed = CommandRouter.builder().meterRegistry(new SimpleMeterRegistry())
                .callCosts(CallCosts.create(new SimpleMeterRegistry(), CallCosts.DEFAULT_SAMPLE_EVERY)).build();
        for (int i = 0; i < COMMANDS; i++) {
            costed.register("bench", Command.named("cmd" + i).handler(call -> bh.consume(call.rest())));
        }
        costed.register("bench", Command.named("bench").handler(call -> bh.consume(call.argInt(0))));
        naive.put("bench", args -> bh.consume(Integer.parseInt(args[1])));
        names.append("bench");
        router.register(Command.named("limited").cooldown(Duration.ofSeconds(10), Scope.USER)
                .rateLimit(5, Duration.ofMinutes(1), Scope.USER)
                .handler(call -> bh.consume(call.argInt(0))));
        alternation = Pattern.compile("^/(" + names + ")(?:\\s+(.*))?$");

        hit = new Source("/bench 1", "u1");
        miss = new Source("hello everyone, how is it going today?", "u1");
        unknown = new Source("/nosuchcommand", "u1");
        checkedHits = new Source[USERS];
        for (int i = 0; i < USERS; i++) {
            checkedHits[i] = new Source("/limited 1", "user-" + i);
        }
    }

    private Object naiveRoute(Source s) {
        String text = s.text();
        if (!text.startsWith("/")) {
            return Outcome.NOT_COMMAND;
        }
        String[] words = text.substring(1).split("\\s+");
        Consumer<String[]> handler = naive.get(words[0]);
        if (handler == null) {
            return Outcome.UNKNOWN;
        }
        handler.accept(words);
        return Outcome.OK;
    }

    private Object regexRoute(Source s, Blackhole bh) {
        Matcher m = alternation.matcher(s.text());
        if (!m.matches()) {
            return Outcome.NOT_COMMAND;
        }
        bh.consume(m.group(1));
        bh.consume(m.group(2));
        return Outcome.OK;
    }

    // ---- router.command_hit: "/bench 1" -> handler done (it parses its number)

    @Benchmark
    public Outcome command_hit__pulsebus() {
        return router.route(hit);
    }

    @Benchmark
    public Object command_hit__naive_split_hashmap() {
        return naiveRoute(hit);
    }

    @Benchmark
    public Object command_hit__regex_alternation(Blackhole bh) {
        return regexRoute(hit, bh);
    }

    // ---- router.command_hit_costed: the same hit, a module's command, its costs measured (bus.cost_sample_every)

    @Benchmark
    public Outcome command_hit_costed__pulsebus() {
        return costed.route(hit);
    }

    /** The same work as {@code command_hit__pulsebus}, measured beside it in the same run: the peer. */
    @Benchmark
    public Outcome command_hit_costed__command_hit() {
        return router.route(hit);
    }

    // ---- router.command_miss: plain text

    @Benchmark
    public Outcome command_miss__pulsebus() {
        return router.route(miss);
    }

    @Benchmark
    public Object command_miss__naive_split_hashmap() {
        return naiveRoute(miss);
    }

    @Benchmark
    public Object command_miss__regex_alternation(Blackhole bh) {
        return regexRoute(miss, bh);
    }

    // ---- router.command_miss_with_asks: plain text in a chat with no pending ask, 4096 other chats asking

    @Benchmark
    public Outcome command_miss_with_asks__pulsebus() {
        return asks.pipeline.offerToAsks(asks.plain) ? Outcome.OK : router.route(miss);
    }

    /** The same work as {@code command_miss__pulsebus}, measured beside it in the same run: the peer. */
    @Benchmark
    public Outcome command_miss_with_asks__command_miss() {
        return router.route(miss);
    }

    // ---- router.command_unknown: "/nosuchcommand"

    @Benchmark
    public Outcome command_unknown__pulsebus() {
        return router.route(unknown);
    }

    @Benchmark
    public Object command_unknown__naive_split_hashmap() {
        return naiveRoute(unknown);
    }

    @Benchmark
    public Object command_unknown__regex_alternation(Blackhole bh) {
        return regexRoute(unknown, bh);
    }

    // ---- router.command_hit_cooldown_checked: a cooldown and a rate limit, 10,000 users cycling

    @Benchmark
    public Outcome command_hit_cooldown_checked__pulsebus() {
        Source s = checkedHits[next];
        next = next + 1 == USERS ? 0 : next + 1;
        return router.route(s);
    }
}
