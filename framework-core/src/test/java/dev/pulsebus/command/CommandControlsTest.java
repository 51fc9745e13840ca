package dev.pulsebus.command;

import dev.pulsebus.testing.FakeClock;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS) // a broken bus or writer hangs rather than fails: make it fail
class CommandControlsTest {

    private final FakeClock clock = new FakeClock();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final AtomicInteger ran = new AtomicInteger();

    private CommandRouter router() {
        return CommandRouter.builder().clock(clock).meterRegistry(registry).build();
    }

    private Outcome call(CommandRouter r, String text, String user, String chat, List<String> replies) {
        Msg m = new Msg(text, user, chat);
        Outcome o = r.route(m);
        replies.addAll(m.replies);
        return o;
    }

    @Test
    void cooldownBlocksWithinTheWindowAndAllowsAtItsEdge() {
        CommandRouter r = router();
        r.register(Command.named("weather").cooldown(Duration.ofSeconds(10), Scope.USER).handler(c -> ran.incrementAndGet()));
        List<String> replies = new ArrayList<>();

        assertThat(call(r, "/weather", "ann", "g", replies)).isEqualTo(Outcome.OK);
        clock.advance(Duration.ofMillis(7_001));
        assertThat(call(r, "/weather", "ann", "g", replies)).isEqualTo(Outcome.COOLDOWN);
        clock.advance(Duration.ofMillis(1_000));
        assertThat(call(r, "/weather", "ann", "g", replies)).isEqualTo(Outcome.COOLDOWN); // same block: silent
        assertThat(call(r, "/weather", "bob", "g", replies)).isEqualTo(Outcome.OK);      // another user
        clock.advance(Duration.ofMillis(1_998));
        assertThat(call(r, "/weather", "ann", "g", replies)).isEqualTo(Outcome.COOLDOWN); // 1 ms before the edge
        clock.advance(Duration.ofMillis(1));
        assertThat(call(r, "/weather", "ann", "g", replies)).isEqualTo(Outcome.OK);      // exactly at the edge

        assertThat(replies).containsExactly("Slow down: try /weather again in 3 s.");
        assertThat(ran).hasValue(3);
        assertThat(registry.get("pulsebus.commands.calls").tag("command", "weather").tag("outcome", "cooldown")
                .functionCounter().count()).isEqualTo(3);
    }

    /** A shared store that cannot answer a grant (Redis down) but answers a give-back, as one coming back does. */
    private static final class Outage implements SharedControls {
        final List<String> released = new java.util.concurrent.CopyOnWriteArrayList<>();
        volatile boolean up;

        @Override
        public long cooldown(String key, long windowMillis, long now) {
            return up ? GRANTED : UNAVAILABLE;
        }

        @Override
        public long rateLimit(String key, int limit, long windowMillis, long now) {
            return up ? GRANTED : UNAVAILABLE;
        }

        @Override
        public long quota(String key, String periodKey, int limit, long periodEndMillis, long now) {
            return up ? GRANTED : UNAVAILABLE;
        }

        @Override
        public boolean release(String control, String key, String periodKey) {
            released.add(control + " " + key);
            return true;
        }
    }

    @Test
    void aGrantIsGivenBackWhereItWasMadeLocalDuringAnOutageSharedOtherwise() {
        Outage store = new Outage();
        CommandRouter r = CommandRouter.builder().clock(clock).sharedControls(store).build();
        r.register(Command.named("w").cooldown(Duration.ofSeconds(60), Scope.USER).handler(c -> c.argInt(0)));
        List<String> replies = new ArrayList<>();

        // Redis down: granted on the local table; bad arguments give the grant back there, not to the store
        assertThat(call(r, "/w x", "ann", "g", replies)).isEqualTo(Outcome.BAD_ARGS);
        assertThat(store.released).isEmpty();
        assertThat(call(r, "/w 1", "ann", "g", replies)).as("the local cooldown was given back").isEqualTo(Outcome.OK);

        store.up = true; // granted in the store: given back there
        assertThat(call(r, "/w x", "bob", "g", replies)).isEqualTo(Outcome.BAD_ARGS);
        assertThat(store.released).containsExactly("cooldown w\u0000bob");
    }

    @Test
    void aNewBlockIsAnsweredAgain() {
        CommandRouter r = router();
        r.register(Command.named("w").cooldown(Duration.ofSeconds(5), Scope.USER).handler(c -> { }));
        List<String> replies = new ArrayList<>();

        call(r, "/w", "ann", "g", replies);
        call(r, "/w", "ann", "g", replies);                 // told: 5 s
        clock.advance(Duration.ofSeconds(5));
        call(r, "/w", "ann", "g", replies);                 // ok: new cooldown
        clock.advance(Duration.ofSeconds(1));
        call(r, "/w", "ann", "g", replies);                 // a new block: told again

        assertThat(replies).containsExactly("Slow down: try /w again in 5 s.", "Slow down: try /w again in 4 s.");
    }

    @Test
    void slidingRateLimitCountsTheLastWindowExactly() {
        CommandRouter r = router();
        r.register(Command.named("draw").rateLimit(3, Duration.ofSeconds(10), Scope.CHAT).handler(c -> ran.incrementAndGet()));
        List<String> replies = new ArrayList<>();

        assertThat(call(r, "/draw", "a", "g1", replies)).isEqualTo(Outcome.OK);   // t=0
        clock.advance(Duration.ofSeconds(4));
        assertThat(call(r, "/draw", "b", "g1", replies)).isEqualTo(Outcome.OK);   // t=4, another user, same chat
        assertThat(call(r, "/draw", "c", "g1", replies)).isEqualTo(Outcome.OK);   // t=4
        assertThat(call(r, "/draw", "a", "g1", replies)).isEqualTo(Outcome.RATE_LIMITED);
        assertThat(call(r, "/draw", "a", "g2", replies)).isEqualTo(Outcome.OK);   // another chat
        clock.advance(Duration.ofMillis(5_999));                                 // t=9.999
        assertThat(call(r, "/draw", "a", "g1", replies)).isEqualTo(Outcome.RATE_LIMITED);
        clock.advance(Duration.ofMillis(1));                                     // t=10: the first call leaves
        assertThat(call(r, "/draw", "a", "g1", replies)).isEqualTo(Outcome.OK);
        assertThat(call(r, "/draw", "a", "g1", replies)).isEqualTo(Outcome.RATE_LIMITED); // until t=14

        assertThat(replies).containsExactly(
                "/draw may be used 3 times per 10 s; try again in 6 s.",
                "/draw may be used 3 times per 10 s; try again in 4 s.");
        assertThat(ran).hasValue(5);
    }

    @Test
    void quotaPerCalendarDayResetsAtMidnightInTheClocksZone() {
        FakeClock tokyo = new FakeClock(Instant.parse("2026-11-30T14:00:00Z"), ZoneId.of("Asia/Tokyo")); // 23:00 there
        CommandRouter r = CommandRouter.builder().clock(tokyo).build();
        r.register(Command.named("fortune").quota(2, QuotaPeriod.DAY, Scope.USER).handler(c -> ran.incrementAndGet()));
        List<String> replies = new ArrayList<>();

        assertThat(call(r, "/fortune", "ann", "g", replies)).isEqualTo(Outcome.OK);
        assertThat(call(r, "/fortune", "ann", "g", replies)).isEqualTo(Outcome.OK);
        assertThat(call(r, "/fortune", "ann", "g", replies)).isEqualTo(Outcome.QUOTA);
        tokyo.advance(Duration.ofMinutes(59).plusSeconds(59));
        assertThat(call(r, "/fortune", "ann", "g", replies)).isEqualTo(Outcome.QUOTA);  // 23:59:59, silent
        tokyo.advance(Duration.ofSeconds(1));                                            // midnight in Tokyo
        assertThat(call(r, "/fortune", "ann", "g", replies)).isEqualTo(Outcome.OK);

        assertThat(replies).containsExactly("You have used /fortune 2 times this day, the most allowed; try again in 60 min.");
    }

    @Test
    void weeklyQuotaStartsOnMonday() {
        FakeClock sunday = new FakeClock(Instant.parse("2026-12-06T23:00:00Z"), ZoneId.of("UTC"));
        CommandRouter r = CommandRouter.builder().clock(sunday).build();
        r.register(Command.named("lottery").quota(1, QuotaPeriod.WEEK, Scope.GLOBAL).handler(c -> ran.incrementAndGet()));
        List<String> replies = new ArrayList<>();

        assertThat(call(r, "/lottery", "ann", "g", replies)).isEqualTo(Outcome.OK);
        assertThat(call(r, "/lottery", "bob", "h", replies)).isEqualTo(Outcome.QUOTA);   // global
        sunday.advance(Duration.ofHours(1));                                              // Monday 00:00
        assertThat(call(r, "/lottery", "bob", "h", replies)).isEqualTo(Outcome.OK);
    }

    @Test
    void quotaCountsSurviveARestartThroughTheStore() {
        Map<String, Integer> saved = new ConcurrentHashMap<>();
        QuotaStore store = new QuotaStore() {
            @Override
            public int used(String command, String key, LocalDate start) {
                return saved.getOrDefault(command + "/" + key + "/" + start, 0);
            }

            @Override
            public void record(String command, String key, LocalDate start, int used) {
                saved.put(command + "/" + key + "/" + start, used);
            }
        };
        Command fortune = Command.named("fortune").quota(2, QuotaPeriod.DAY, Scope.USER).handler(c -> { });
        CommandRouter before = CommandRouter.builder().clock(clock).quotaStore(store).build();
        before.register(fortune);
        call(before, "/fortune", "ann", "g", new ArrayList<>());
        call(before, "/fortune", "ann", "g", new ArrayList<>());

        CommandRouter after = CommandRouter.builder().clock(clock).quotaStore(store).build();
        after.register(fortune);

        assertThat(call(after, "/fortune", "ann", "g", new ArrayList<>())).isEqualTo(Outcome.QUOTA);
        assertThat(saved).containsEntry("fortune/ann/2026-11-30", 2);
    }

    @Test
    void aCallRefusedByOneControlCostsNothingInTheOthers() {
        CommandRouter r = router();
        r.register(Command.named("ask").cooldown(Duration.ofSeconds(1), Scope.USER)
                .rateLimit(2, Duration.ofMinutes(1), Scope.GLOBAL).handler(c -> ran.incrementAndGet()));
        List<String> replies = new ArrayList<>();

        call(r, "/ask", "a", "g", replies);
        call(r, "/ask", "b", "g", replies);
        assertThat(call(r, "/ask", "c", "g", replies)).isEqualTo(Outcome.RATE_LIMITED);
        // c's cooldown was given back when the rate limit refused: after the window, c goes straight through
        clock.advance(Duration.ofMinutes(1));
        assertThat(call(r, "/ask", "c", "g", replies)).isEqualTo(Outcome.OK);
        assertThat(ran).hasValue(3);
    }

    @Test
    void badArgumentsGiveTheCallBackToTheControls() {
        CommandRouter r = router();
        r.register(Command.named("roll").usage("/roll <sides>").cooldown(Duration.ofMinutes(1), Scope.USER)
                .handler(c -> ran.addAndGet(c.argInt(0))));
        List<String> replies = new ArrayList<>();

        assertThat(call(r, "/roll x", "ann", "g", replies)).isEqualTo(Outcome.BAD_ARGS);
        assertThat(call(r, "/roll 6", "ann", "g", replies)).isEqualTo(Outcome.OK);
        assertThat(ran).hasValue(6);
    }

    @Test
    void refusalsSpeakTheSendersLanguage() {
        CommandRouter r = router();
        r.register(Command.named("w").cooldown(Duration.ofSeconds(90), Scope.USER).handler(c -> { }));
        r.route(new Msg("/w", "ann", "g"));
        Msg zh = new Msg("/w", "ann", "g").locale(Locale.CHINA);

        assertThat(r.route(zh)).isEqualTo(Outcome.COOLDOWN);
        assertThat(zh.replies).containsExactly("操作太快了：请 90 秒后再试 /w。");
    }

    @Test
    void embeddersCanAddALanguage() {
        CommandRouter r = CommandRouter.builder().clock(clock)
                .messages(Locale.JAPANESE, Map.of("denied", "{command} は使えません。")).build();
        r.register(Command.named("op").permission(s -> false).handler(c -> { }));
        Msg ja = Msg.of("/op").locale(Locale.JAPAN);

        r.route(ja);

        assertThat(ja.replies).containsExactly("/op は使えません。");
    }

    @Test
    void the4097thKeyEvictsTheLeastRecentlyUsedOne() {
        CommandRouter r = router();
        r.register(Command.named("w").cooldown(Duration.ofHours(1), Scope.USER).handler(c -> { }));
        List<String> ignored = new ArrayList<>();
        for (int u = 0; u < 4096; u++) {
            assertThat(call(r, "/w", "user" + u, "g", ignored)).isEqualTo(Outcome.OK);
        }
        assertThat(call(r, "/w", "user0", "g", ignored)).isEqualTo(Outcome.COOLDOWN); // user0 used again: now newest
        assertThat(registry.get("pulsebus.commands.table.size").gauge().value()).isEqualTo(4096);

        assertThat(call(r, "/w", "user4096", "g", ignored)).isEqualTo(Outcome.OK);  // the 4097th key

        assertThat(registry.get("pulsebus.commands.table.evictions").tag("control", "cooldown")
                .functionCounter().count()).isEqualTo(1);
        assertThat(registry.get("pulsebus.commands.table.size").gauge().value()).isEqualTo(4096);
        assertThat(call(r, "/w", "user0", "g", ignored)).isEqualTo(Outcome.COOLDOWN); // kept
        assertThat(call(r, "/w", "user2", "g", ignored)).isEqualTo(Outcome.COOLDOWN); // kept
        assertThat(call(r, "/w", "user1", "g", ignored)).isEqualTo(Outcome.OK);       // evicted: forgotten
    }

    @Test
    void tableCapacityIsConfigurable() {
        CommandRouter r = CommandRouter.builder().clock(clock).meterRegistry(registry).tableCapacity(2).build();
        r.register(Command.named("w").rateLimit(1, Duration.ofHours(1), Scope.CHAT).handler(c -> { }));
        List<String> ignored = new ArrayList<>();
        for (String chat : List.of("a", "b", "c", "d")) {
            call(r, "/w", "u", chat, ignored);
        }
        assertThat(registry.get("pulsebus.commands.table.size").gauge().value()).isEqualTo(2);
        assertThat(registry.get("pulsebus.commands.table.evictions").functionCounter().count()).isEqualTo(2);
    }

    @Test
    void concurrentHammeringGrantsExactlyTheLimit() throws Exception {
        CommandRouter r = router();
        r.register(Command.named("global").rateLimit(1_000, Duration.ofHours(1), Scope.GLOBAL)
                .handler(c -> ran.incrementAndGet()));
        AtomicInteger perUser = new AtomicInteger();
        r.register(Command.named("mine").cooldown(Duration.ofHours(1), Scope.USER)
                .handler(c -> perUser.incrementAndGet()));
        hammer(8, 5_000, (t, i) -> {
            r.route(new Msg("/global", "u" + (i % 500), "g"));
            r.route(new Msg("/mine", "t" + t + "-" + (i % 50), "g"));
        });

        assertThat(ran).hasValue(1_000);       // one shared budget, never overspent
        assertThat(perUser).hasValue(8 * 50);  // exactly one call per user within the cooldown
    }

    @Test
    void concurrentChurnKeepsTheTableAtItsCap() throws Exception {
        CommandRouter r = CommandRouter.builder().clock(clock).meterRegistry(registry).tableCapacity(64).build();
        r.register(Command.named("w").cooldown(Duration.ofHours(1), Scope.USER).handler(c -> { }));
        hammer(8, 5_000, (t, i) -> r.route(new Msg("/w", "t" + t + "-" + i, "g")));

        assertThat(registry.get("pulsebus.commands.table.size").gauge().value()).isEqualTo(64);
        assertThat(registry.get("pulsebus.commands.table.evictions").functionCounter().count())
                .isEqualTo(8 * 5_000 - 64);
    }

    private interface Work {
        void run(int thread, int i);
    }

    private static void hammer(int threads, int perThread, Work work) throws InterruptedException {
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        List<Throwable> errors = new java.util.concurrent.CopyOnWriteArrayList<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            workers.add(Thread.ofPlatform().start(() -> {
                try {
                    start.await();
                    for (int i = 0; i < perThread; i++) {
                        work.run(id, i);
                    }
                } catch (Throwable e) {
                    errors.add(e);
                }
            }));
        }
        start.countDown();
        for (Thread w : workers) {
            w.join();
        }
        assertThat(errors).isEmpty();
    }
}
