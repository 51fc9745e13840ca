package dev.pulsebus.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulsebus.command.Command;
import dev.pulsebus.command.CommandRouter;
import dev.pulsebus.command.Msg;
import dev.pulsebus.command.Outcome;
import dev.pulsebus.command.QuotaPeriod;
import dev.pulsebus.command.Scope;
import dev.pulsebus.testing.Await;
import dev.pulsebus.testing.FakeClock;
import dev.pulsebus.testing.TcpProxy;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Cooldowns, rate limits and quotas decided in a real Redis by three routers, each with its own connection, as
 * three instances would: the same grants and the same refusal answers as one router's tables, and the local
 * tables standing in while Redis is cut off.
 */
class SharedControlsTest {

    private final FakeClock clock = new FakeClock();
    private final List<AutoCloseable> open = new ArrayList<>();
    private String prefix = "";

    @BeforeEach
    void redis() {
        Servers.require("Redis", Servers.REDIS_PORT, "SharedControlsTest");
        prefix = Servers.prefix();
    }

    @AfterEach
    void close() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private RedisState state(int port, String instance) {
        RedisState s = new RedisState(URI.create("redis://127.0.0.1:" + port), prefix, instance);
        open.add(s);
        return s;
    }

    /** Three instances' routers, each on its own connection to Redis through {@code port}. */
    private List<CommandRouter> routers(int port, Command... commands) {
        List<CommandRouter> routers = new ArrayList<>();
        for (String name : List.of("a", "b", "c")) {
            CommandRouter r = CommandRouter.builder().clock(clock).sharedControls(state(port, name)).build();
            for (Command c : commands) {
                r.register(c);
            }
            routers.add(r);
        }
        return routers;
    }

    private static Command daily() {
        return Command.named("daily").cooldown(Duration.ofDays(1), Scope.USER).handler(call -> call.reply("ok"));
    }

    @Test
    void aCooldownSetOnOneInstanceRefusesOnTheOthersWithTheUsualAnswerOncePerBlock() {
        List<CommandRouter> r = routers(Servers.REDIS_PORT, daily());
        Msg first = new Msg("/daily", "ann", "g1");
        assertThat(r.get(0).route(first)).isEqualTo(Outcome.OK);
        Msg onB = new Msg("/daily", "ann", "g1");
        assertThat(r.get(1).route(onB)).isEqualTo(Outcome.COOLDOWN);
        assertThat(onB.replies).singleElement().asString().isEqualTo("Slow down: try /daily again in 24 h.");
        Msg onC = new Msg("/daily", "ann", "g1");
        assertThat(r.get(2).route(onC)).isEqualTo(Outcome.COOLDOWN);
        assertThat(onC.replies).as("told once per block, across instances").isEmpty();
        assertThat(r.get(2).route(new Msg("/daily", "bob", "g1"))).as("another user").isEqualTo(Outcome.OK);

        clock.advance(Duration.ofDays(1));
        assertThat(r.get(2).route(new Msg("/daily", "ann", "g1"))).isEqualTo(Outcome.OK);
        assertThat(r.get(0).route(new Msg("/daily", "ann", "g1"))).isEqualTo(Outcome.COOLDOWN);
    }

    @Test
    void theRefusalReadsAsOnOneInstance() {
        CommandRouter local = CommandRouter.builder().clock(clock).build();
        local.register(daily());
        Msg ok = new Msg("/daily", "ann", "g1");
        local.route(ok);
        Msg refusedLocally = new Msg("/daily", "ann", "g1");
        local.route(refusedLocally);
        List<CommandRouter> r = routers(Servers.REDIS_PORT, daily());
        r.get(0).route(new Msg("/daily", "ann", "g1"));
        Msg refusedShared = new Msg("/daily", "ann", "g1");
        r.get(1).route(refusedShared);
        assertThat(refusedShared.replies).isEqualTo(refusedLocally.replies);
    }

    @Test
    void aRateLimitOfFiveHoldsAtFiveAcrossThreeInstancesUnderConcurrentCalls() throws Exception {
        List<CommandRouter> r = routers(Servers.REDIS_PORT, Command.named("ask")
                .rateLimit(5, Duration.ofMinutes(1), Scope.GLOBAL).handler(call -> call.reply("answer")));
        AtomicInteger granted = new AtomicInteger();
        AtomicInteger told = new AtomicInteger();
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            CommandRouter router = r.get(i % 3);
            String user = "u" + i;
            threads.add(Thread.ofPlatform().start(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                Msg m = new Msg("/ask", user, "g1");
                Outcome o = router.route(m);
                if (o == Outcome.OK) {
                    granted.incrementAndGet();
                } else if (o == Outcome.RATE_LIMITED && !m.replies.isEmpty()) {
                    told.incrementAndGet();
                }
            }));
        }
        go.countDown();
        for (Thread t : threads) {
            t.join();
        }
        assertThat(granted.get()).isEqualTo(5);
        assertThat(told.get()).as("the refusal told once for the block").isEqualTo(1);
        clock.advance(Duration.ofMinutes(1));
        assertThat(r.get(1).route(new Msg("/ask", "late", "g1"))).isEqualTo(Outcome.OK);
    }

    @Test
    void aQuotaCountsAcrossInstancesAndABadArgumentGivesTheCallBack() {
        List<CommandRouter> r = routers(Servers.REDIS_PORT, Command.named("draw")
                .quota(2, QuotaPeriod.DAY, Scope.USER).handler(call -> call.reply("card " + call.argInt(0))));
        assertThat(r.get(0).route(new Msg("/draw 1", "ann", "g1"))).isEqualTo(Outcome.OK);
        assertThat(r.get(1).route(new Msg("/draw x", "ann", "g1"))).isEqualTo(Outcome.BAD_ARGS);
        assertThat(r.get(2).route(new Msg("/draw 2", "ann", "g1"))).as("the bad call was given back").isEqualTo(Outcome.OK);
        Msg third = new Msg("/draw 3", "ann", "g1");
        assertThat(r.get(0).route(third)).isEqualTo(Outcome.QUOTA);
        assertThat(third.replies).singleElement().asString().contains("2");
        clock.advance(Duration.ofDays(1));
        assertThat(r.get(1).route(new Msg("/draw 4", "ann", "g1"))).isEqualTo(Outcome.OK);
    }

    /**
     * A cooldown and a rate limit of one command, decided together in one script: a cooldown refusal takes none of
     * the rate limit; a rate-limit refusal gives the cooldown back; the refusal told once, across instances.
     */
    @Test
    void aCooldownAndARateLimitAreDecidedTogetherAndARefusalGivesTheEarlierGrantBack() {
        List<CommandRouter> r = routers(Servers.REDIS_PORT, Command.named("spin")
                .cooldown(Duration.ofMinutes(10), Scope.USER).rateLimit(3, Duration.ofMinutes(1), Scope.GLOBAL)
                .handler(call -> call.reply("spun")));
        assertThat(r.get(0).route(new Msg("/spin", "ann", "g1"))).isEqualTo(Outcome.OK);
        assertThat(r.get(1).route(new Msg("/spin", "ann", "g1"))).as("ann's cooldown, on another instance")
                .isEqualTo(Outcome.COOLDOWN);
        assertThat(r.get(2).route(new Msg("/spin", "bob", "g1"))).isEqualTo(Outcome.OK);
        assertThat(r.get(0).route(new Msg("/spin", "cy", "g1"))).as("ann's refused call took no rate").isEqualTo(Outcome.OK);
        Msg dan = new Msg("/spin", "dan", "g1");
        assertThat(r.get(1).route(dan)).isEqualTo(Outcome.RATE_LIMITED);
        assertThat(dan.replies).singleElement().asString().contains("/spin");
        Msg eve = new Msg("/spin", "eve", "g1");
        assertThat(r.get(2).route(eve)).isEqualTo(Outcome.RATE_LIMITED);
        assertThat(eve.replies).as("told once for the block, across instances").isEmpty();
        clock.advance(Duration.ofMinutes(1));
        assertThat(r.get(0).route(new Msg("/spin", "dan", "g1"))).as("dan's cooldown was given back").isEqualTo(Outcome.OK);
        assertThat(r.get(1).route(new Msg("/spin", "ann", "g1"))).as("ann's cooldown holds").isEqualTo(Outcome.COOLDOWN);
    }

    @Test
    void aRedisOutageFallsBackToTheLocalTablesAndSharingResumesWhenItIsBack() throws Exception {
        try (TcpProxy proxy = new TcpProxy(Servers.REDIS_PORT)) {
            List<CommandRouter> r = routers(proxy.port(), daily());
            RedisState a = (RedisState) open.get(0);
            // a loaded machine may time the first connect out: the instances then find Redis a probe later
            assertThat(Await.until(Duration.ofSeconds(10), () -> open.stream().allMatch(s -> ((RedisState) s).up())))
                    .as("every instance finds Redis").isTrue();
            long outagesBefore = a.outages.sum();
            proxy.cut();
            assertThat(r.get(0).route(new Msg("/daily", "ann", "g1"))).as("still answered, on the local table")
                    .isEqualTo(Outcome.OK);
            assertThat(a.up()).isFalse();
            assertThat(r.get(0).route(new Msg("/daily", "ann", "g1"))).as("the local table's cooldown").isEqualTo(Outcome.COOLDOWN);
            assertThat(r.get(1).route(new Msg("/daily", "ann", "g1"))).as("B does not know A's local grant").isEqualTo(Outcome.OK);
            assertThat(a.outages.sum()).isEqualTo(outagesBefore + 1);

            proxy.restore();
            assertThat(Await.until(Duration.ofSeconds(10), () -> open.stream().allMatch(s -> ((RedisState) s).up())))
                    .as("every instance finds Redis again").isTrue();
            assertThat(r.get(2).route(new Msg("/daily", "cy", "g1"))).isEqualTo(Outcome.OK);
            assertThat(r.get(0).route(new Msg("/daily", "cy", "g1"))).as("shared again").isEqualTo(Outcome.COOLDOWN);
        }
    }

    @Test
    void aFinishedEventIsRecognisedByEveryInstance() {
        RedisState a = state(Servers.REDIS_PORT, "a");
        RedisState b = state(Servers.REDIS_PORT, "b");
        assertThat(b.isDone("http:1")).isFalse();
        assertThat(a.markDone("http:1", 60_000)).isTrue();
        assertThat(b.isDone("http:1")).isTrue();
    }
}
