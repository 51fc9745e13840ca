package dev.pulsebus.module;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pulsebus.bus.EventBus;
import dev.pulsebus.command.CommandRouter;
import dev.pulsebus.testing.Await;
import dev.pulsebus.testing.FakeClock;
import dev.pulsebus.testing.MemoryKvStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Modules' cron jobs on a fake clock: times across daylight-saving changes, overlap, catch-up, unload. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CronJobTest {

    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");
    private static final ZoneId SYDNEY = ZoneId.of("Australia/Sydney");

    private final FakeClock clock = new FakeClock(Instant.parse("2026-03-27T12:00:00Z"), ZoneOffset.UTC);
    private final EventBus bus = EventBus.create();
    private final MemoryKvStore kv = new MemoryKvStore();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final ModuleHost host = ModuleHost.builder(bus, CommandRouter.builder().build()).kv(kv).clock(clock)
            .clockRecheck(Duration.ofMillis(5)).meterRegistry(registry).build();

    @AfterEach
    void stop() {
        host.close();
        bus.close();
    }

    private CronJob load(String module, String cron, ZoneId zone, Runnable job, boolean catchUp) {
        AtomicReference<CronJob> made = new AtomicReference<>();
        host.load(new ModuleHostTest.TestModule(module, ctx -> {
            CronJob j = ctx.schedule(cron, zone, job);
            made.set(catchUp ? j.catchUp() : j);
        }));
        return made.get();
    }

    @Test
    void nextTimesFollowEachZonesDaylightSavingChange() throws Exception {
        List<String> ran = new CopyOnWriteArrayList<>();
        CronJob berlin = load("berlin", "0 9 * * *", BERLIN, () -> ran.add("berlin " + clock.instant()), false);
        CronJob sydney = load("sydney", "@daily", SYDNEY, () -> ran.add("sydney " + clock.instant()), false);
        // Berlin goes from +01:00 to +02:00 on 29 March; Sydney from +11:00 to +10:00 on 5 April.
        List<Map.Entry<CronJob, String>> expected = new ArrayList<>(List.of(
                Map.entry(berlin, "2026-03-28T08:00:00Z"), Map.entry(berlin, "2026-03-29T07:00:00Z"),
                Map.entry(berlin, "2026-03-30T07:00:00Z"),
                Map.entry(sydney, "2026-03-27T13:00:00Z"), Map.entry(sydney, "2026-04-04T13:00:00Z"),
                Map.entry(sydney, "2026-04-05T14:00:00Z")));
        assertThat(berlin.nextRun()).isEqualTo(Instant.parse("2026-03-28T08:00:00Z"));
        assertThat(sydney.nextRun()).isEqualTo(Instant.parse("2026-03-27T13:00:00Z"));

        // Walk the clock to each expected time of each job, checking the job said it would run then.
        expected.sort(Comparator.comparing(e -> Instant.parse(e.getValue())));
        for (Map.Entry<CronJob, String> e : expected) {
            Instant at = Instant.parse(e.getValue());
            while (e.getKey().nextRun() != null && e.getKey().nextRun().isBefore(at)) { // days between: run them
                long before = e.getKey().runs();
                clock.advance(Duration.between(clock.instant(), e.getKey().nextRun()));
                assertThat(Await.until(WAIT, () -> e.getKey().runs() == before + 1)).isTrue();
            }
            assertThat(e.getKey().nextRun()).as(e.getValue()).isEqualTo(at);
            long before = e.getKey().runs();
            clock.advance(Duration.between(clock.instant(), at));
            assertThat(Await.until(WAIT, () -> e.getKey().runs() == before + 1)).isTrue();
        }
        assertThat(Await.until(WAIT, () -> ran.contains("sydney 2026-04-05T14:00:00Z"))).isTrue();
        assertThat(ran).contains("berlin 2026-03-29T07:00:00Z", "sydney 2026-04-04T13:00:00Z");
    }

    @Test
    void aTimeThatDoesNotExistOnTheSpringForwardDayIsSkippedThatDay() {
        Cron halfPastTwo = Cron.parse("30 2 * * *", BERLIN);

        assertThat(halfPastTwo.next(Instant.parse("2026-03-28T02:00:00Z")))
                .isEqualTo(Instant.parse("2026-03-30T00:30:00Z"));
        assertThat(Cron.parse("30 1 * * *", ZoneId.of("America/New_York")).next(Instant.parse("2026-11-01T05:30:00Z")))
                .as("01:30 comes twice on 1 November; it ran at its first (05:30Z)")
                .isEqualTo(Instant.parse("2026-11-02T06:30:00Z"));
    }

    @Test
    void aRunStillGoingWhenTheNextIsDueMakesItSkippedAndCounted() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CronJob job = load("slow", "* * * * *", ZoneOffset.UTC, () -> {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, false);
        clock.advance(Duration.ofMinutes(1));
        assertThat(Await.until(WAIT, () -> job.runs() == 1)).isTrue();

        clock.advance(Duration.ofMinutes(1));
        assertThat(Await.until(WAIT, () -> job.skipped() == 1)).isTrue();
        assertThat(job.runs()).isEqualTo(1);
        assertThat(registry.get("pulsebus.schedule.runs").tag("module", "slow").tag("result", "skipped")
                .counter().count()).isEqualTo(1);

        release.countDown();
        assertThat(Await.until(WAIT, () -> registry.get("pulsebus.schedule.runs").tag("result", "ok")
                .counter().count() == 1)).isTrue();
        clock.advance(Duration.ofMinutes(1));
        assertThat(Await.until(WAIT, () -> job.runs() == 2)).isTrue();
    }

    @Test
    void aMissedRunIsReplayedOnceOnlyWhenTheJobAsks() throws Exception {
        List<Instant> ran = new CopyOnWriteArrayList<>();
        load("digest", "0 9 * * *", ZoneOffset.UTC, () -> ran.add(clock.instant()), true);
        load("plain", "0 9 * * *", ZoneOffset.UTC, () -> ran.add(Instant.EPOCH), false);
        host.unload("digest"); // the bot goes down for three days: three 09:00 runs missed
        host.unload("plain");
        clock.advance(Duration.ofDays(3));

        CronJob digest = load("digest", "0 9 * * *", ZoneOffset.UTC, () -> ran.add(clock.instant()), true);
        CronJob plain = load("plain", "0 9 * * *", ZoneOffset.UTC, () -> ran.add(Instant.EPOCH), false);

        assertThat(Await.until(WAIT, () -> digest.runs() == 1 && ran.size() == 1)).isTrue();
        assertThat(ran).containsExactly(clock.instant());
        assertThat(plain.runs()).isZero();
        assertThat(kv.namespace("digest").get("pulsebus.schedule/0 9 * * */Z")).isEqualTo(clock.instant().toString());

        host.unload("digest"); // and straight up again: nothing more to replay
        CronJob again = load("digest", "0 9 * * *", ZoneOffset.UTC, () -> ran.add(clock.instant()), true);
        assertThat(again.runs()).isZero();
    }

    @Test
    void unloadingTheModuleCancelsItsJobs() throws Exception {
        List<Instant> ran = new CopyOnWriteArrayList<>();
        CronJob job = load("gone", "@hourly", ZoneOffset.UTC, () -> ran.add(clock.instant()), false);

        host.unload("gone");
        clock.advance(Duration.ofHours(2));

        assertThat(job.nextRun()).isNull();
        assertThat(Await.until(Duration.ofMillis(100), () -> !ran.isEmpty())).isFalse();
    }

    /** A cluster's claims as Redis keeps them (Cluster.scheduleClaims): a claim per time, a running mark per job. */
    static final class SharedClaims implements ScheduleClaims {
        final Map<String, String> times;
        final Map<String, String> running = new java.util.concurrent.ConcurrentHashMap<>();

        SharedClaims(Map<String, String> times) {
            this.times = times;
        }

        @Override
        public synchronized Claim claim(String job, Instant time, Duration hold) {
            if (times.putIfAbsent(job + "@" + time, "claimed") != null) {
                return Claim.ELSEWHERE;
            }
            if (running.putIfAbsent(job, time.toString()) != null) {
                times.remove(job + "@" + time);
                return Claim.BUSY;
            }
            return Claim.RUN;
        }

        @Override
        public synchronized void ended(String job, Instant time) {
            running.remove(job, time.toString());
        }
    }

    @Test
    void aRunStillGoingOnOneInstanceMakesTheOthersSkipTheJobsNextTime() throws Exception {
        SharedClaims claims = new SharedClaims(new java.util.concurrent.ConcurrentHashMap<>());
        CountDownLatch release = new CountDownLatch(1);
        List<CronJob> jobs = new CopyOnWriteArrayList<>();
        List<String> ran = new CopyOnWriteArrayList<>();
        try (ModuleHost a = ModuleHost.builder(bus, CommandRouter.builder().build()).clock(clock)
                .clockRecheck(Duration.ofMillis(5)).scheduleClaims(claims).build();
             ModuleHost b = ModuleHost.builder(bus, CommandRouter.builder().build()).clock(clock)
                .clockRecheck(Duration.ofMillis(5)).scheduleClaims(claims).build()) {
            for (ModuleHost h : List.of(a, b)) {
                h.load(new ModuleHostTest.TestModule("slow", ctx -> jobs.add(ctx.schedule("* * * * *", ZoneOffset.UTC,
                        () -> {
                            ran.add(clock.instant().toString());
                            try {
                                release.await();
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        }))));
            }
            clock.advance(Duration.ofMinutes(1)); // 12:01 runs on one of them and does not end
            assertThat(Await.until(WAIT, () -> ran.size() == 1)).isTrue();
            clock.advance(Duration.ofMinutes(1)); // 12:02: skipped on both, the run of 12:01 still goes
            assertThat(Await.until(WAIT, () -> jobs.stream().mapToLong(CronJob::skipped).sum() == 2)).isTrue();
            assertThat(ran).hasSize(1);

            release.countDown();
            assertThat(Await.until(WAIT, () -> claims.running.isEmpty())).as("the run's mark went with it").isTrue();
            clock.advance(Duration.ofMinutes(1)); // 12:03 runs again, once
            assertThat(Await.until(WAIT, () -> ran.size() == 2)).isTrue();
            assertThat(Await.until(Duration.ofMillis(200), () -> ran.size() > 2)).isFalse();
            assertThat(jobs.stream().mapToLong(CronJob::runs).sum()).isEqualTo(2);
        }
    }

    @Test
    void twoInstancesSharingClaimsRunEachTimeOnceAndEachAlikeJobOfItsOwn() throws Exception {
        Map<String, String> claimed = new java.util.concurrent.ConcurrentHashMap<>();
        List<String> ran = new CopyOnWriteArrayList<>();
        SimpleMeterRegistry otherRegistry = new SimpleMeterRegistry();
        SharedClaims shared = new SharedClaims(claimed); // a cluster's instances share one Redis
        try (ModuleHost other = ModuleHost.builder(bus, CommandRouter.builder().build()).kv(kv).clock(clock)
                .clockRecheck(Duration.ofMillis(5)).meterRegistry(otherRegistry)
                .scheduleClaims(shared).build();
             ModuleHost first = ModuleHost.builder(bus, CommandRouter.builder().build()).kv(kv).clock(clock)
                .clockRecheck(Duration.ofMillis(5)).meterRegistry(registry)
                .scheduleClaims(shared).build()) {
            List<CronJob> jobs = new CopyOnWriteArrayList<>();
            for (ModuleHost h : List.of(first, other)) {
                h.load(new ModuleHostTest.TestModule("digest", ctx -> { // two jobs alike: both are to run
                    jobs.add(ctx.schedule("* * * * *", ZoneOffset.UTC, () -> ran.add("one " + clock.instant())));
                    jobs.add(ctx.schedule("* * * * *", ZoneOffset.UTC, () -> ran.add("two " + clock.instant())));
                }));
            }

            java.util.function.DoubleSupplier elsewhere = () -> registry.get("pulsebus.schedule.runs")
                    .tag("result", "elsewhere").counter().count() + otherRegistry.get("pulsebus.schedule.runs")
                    .tag("result", "elsewhere").counter().count();
            for (int minute = 1; minute <= 3; minute++) { // the next minute once both instances are done with this one
                clock.advance(Duration.ofMinutes(1));
                int expected = 2 * minute;
                assertThat(Await.until(WAIT, () -> ran.size() >= expected && shared.running.isEmpty()
                        && elsewhere.getAsDouble() == expected)).as("minute %d", minute).isTrue();
            }
            assertThat(Await.until(Duration.ofMillis(200), () -> ran.size() > 6)).as("a time run twice").isFalse();
            assertThat(ran).containsExactlyInAnyOrder(
                    "one 2026-03-27T12:01:00Z", "two 2026-03-27T12:01:00Z", "one 2026-03-27T12:02:00Z",
                    "two 2026-03-27T12:02:00Z", "one 2026-03-27T12:03:00Z", "two 2026-03-27T12:03:00Z");
            assertThat(claimed).containsKeys("digest/* * * * */Z@2026-03-27T12:01:00Z",
                    "digest/* * * * */Z#2@2026-03-27T12:01:00Z");
            assertThat(jobs.stream().mapToLong(CronJob::runs).sum()).isEqualTo(6);
            assertThat(elsewhere.getAsDouble()).as("each time declined by the other instance").isEqualTo(6);
        }
    }

    @Test
    void aMissedRunIsReplayedByOneInstanceWhenBothStartTogether() throws Exception {
        Map<String, String> claimed = new java.util.concurrent.ConcurrentHashMap<>();
        List<String> ran = new CopyOnWriteArrayList<>();
        ScheduleClaims claims = new SharedClaims(claimed);
        kv.namespace("digest").set("pulsebus.schedule/0 9 * * */Z", "2026-03-26T09:00:00Z"); // down since
        try (ModuleHost a = ModuleHost.builder(bus, CommandRouter.builder().build()).kv(kv).clock(clock)
                .scheduleClaims(claims).build();
             ModuleHost b = ModuleHost.builder(bus, CommandRouter.builder().build()).kv(kv).clock(clock)
                .scheduleClaims(claims).build()) {
            CountDownLatch bothRead = new CountDownLatch(2);
            for (ModuleHost h : List.of(a, b)) {
                Thread.ofVirtual().start(() -> h.load(new ModuleHostTest.TestModule("digest", ctx -> {
                    CronJob job = ctx.schedule("0 9 * * *", ZoneOffset.UTC, () -> ran.add("digest"));
                    bothRead.countDown();
                    job.catchUp();
                })));
            }
            assertThat(bothRead.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(Await.until(WAIT, () -> claimed.containsKey("digest/0 9 * * */Z@2026-03-27T09:00:00Z"))).isTrue();
            assertThat(Await.until(Duration.ofMillis(300), () -> ran.size() > 1)).isFalse();
            assertThat(ran).containsExactly("digest");
        }
    }

    @Test
    void claimsThatFailRunTheJobHere() throws Exception {
        List<Instant> ran = new CopyOnWriteArrayList<>();
        try (ModuleHost h = ModuleHost.builder(bus, CommandRouter.builder().build()).clock(clock)
                .clockRecheck(Duration.ofMillis(5)).scheduleClaims((job, time, hold) -> {
                    throw new IllegalStateException("Redis is down");
                }).build()) {
            h.load(new ModuleHostTest.TestModule("hourly", ctx -> ctx.schedule("@hourly", ZoneOffset.UTC,
                    () -> ran.add(clock.instant()))));
            clock.advance(Duration.ofHours(1));
            assertThat(Await.until(WAIT, () -> ran.size() == 1)).isTrue();
        }
    }

    @Test
    void aBadExpressionIsRefusedSayingWhy() {
        assertThatThrownBy(() -> Cron.parse("0 9 * *", BERLIN)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bad cron expression '0 9 * *'").hasMessageContaining("5");
        assertThatThrownBy(() -> Cron.parse("61 * * * *", BERLIN)).hasMessageContaining("61");
    }
}
