package dev.pulsebus.bench.adapter;

import dev.pulsebus.bench.harness.BenchOptions;
import dev.pulsebus.bench.harness.JmhSuite;
import dev.pulsebus.bench.harness.Progress;
import dev.pulsebus.bench.harness.Row;
import dev.pulsebus.bench.harness.ServerFixture;
import dev.pulsebus.bench.harness.Suite;
import dev.pulsebus.server.PulseBusServer;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.HdrHistogram.Histogram;

/**
 * The {@code adapter} suite (issues 17 and 19): {@code onebot11_decode} and {@code telegram_decode} under JMH
 * beside Jackson's tree and token walk, then a real server in this JVM with the v11 adapter on its reverse
 * WebSocket, loaded over loopback by {@link OneBotLoad}, and one with the Telegram adapter polling
 * {@link FakeTelegram}, and the IRC adapter against a real ngIRCd ({@link IrcRoundtrip}). Each socket row
 * runs in interleaved rounds with the do-nothing bot
 * ({@link InstantBot}, the floor) at the same load, and reports the median of its rounds. The flood runs
 * first, so the round trips are timed on a warm server.
 */
public final class AdapterSuite implements Suite {

    static final double RATE = 1000;
    /** The rate of {@code onebot11_roundtrip_3k}: where the issue found PulseBus's tail growing and replies lost. */
    static final double RATE_3K = 3000;
    /** {@code onebot11_roundtrip_3k}'s target: its p99 at most this many times the do-nothing bot's. */
    private static final double P99_3K_FLOOR_RATIO = 2;
    /** {@code onebot11_flood}'s target against the do-nothing bot in the same rounds. */
    private static final double FLOOD_FLOOR_RATIO = 0.5;
    /** Messages the flood keeps in flight: well under a lane's 1024, so none is dropped for a full lane. */
    static final int WINDOW = 256;
    private static final int ROUNDS = 3;
    private static final double P50_TARGET_US = 300;
    private static final double P99_TARGET_US = 2000;
    private static final double FLOOD_TARGET = 50_000;
    /** Telegram round trips per second: each takes two HTTP exchanges (the poll's answer, the sendMessage). */
    static final double TELEGRAM_RATE = 200;
    private static final double TELEGRAM_P99_TARGET_US = 5000;
    private static final String ONEBOT = """

            [adapters.onebot11]
            enabled = true
            mode = "reverse-ws"
            """;

    private final JmhSuite decode = new JmhSuite("adapter", DecodeBench.class,
            List.of("jackson_tree", "jackson_tokens"), List.of(new JmhSuite.RowSpec("onebot11_decode", false,
                    "a 726-byte v11 group message (reply, at, text, image, sender) to a GroupMessage by the"
                            + " adapter's decoder (from a direct buffer, as Netty hands it over); peers from a byte"
                            + " array: readTree and a hand mapping to the same record, and the bare token walk",
                    JmhSuite.Target.ratioTo("jackson_tokens", 0.7).andRatioTo("jackson_tree", 1.3)
                            .allocAtMost(2048))));

    private final JmhSuite telegramDecode = new JmhSuite("adapter", TelegramDecodeBench.class,
            List.of("jackson_tree", "jackson_tokens"), List.of(new JmhSuite.RowSpec("telegram_decode", false,
                    "an 816-byte Bot API Update (a supergroup message replying to another, a command for this bot,"
                            + " a mention, a bold entity) to a GroupMessage by the adapter's decoder (from a direct"
                            + " buffer, as a webhook post hands it over); peers from a byte array: readTree and a hand"
                            + " mapping to the same record, and the bare token walk; extra is built at its first"
                            + " read, as the next row does",
                    JmhSuite.Target.ratioTo("jackson_tokens", 0.7).andRatioTo("jackson_tree", 1.3)
                            .allocAtMost(2048)),
                    new JmhSuite.RowSpec("telegram_decode_extra", false,
                            "telegram_decode's update to its event, then its extra (the message's fields) read:"
                                    + " ours builds it at that read; the peer is the tree's hand mapping, read alike",
                            null)));

    @Override
    public String name() {
        return "adapter";
    }

    @Override
    public List<Row> run(BenchOptions options) throws Exception {
        List<Row> rows = new ArrayList<>(decode.run(options));
        rows.addAll(telegramDecode.run(options));
        Duration warmup = options.quick() ? Duration.ofSeconds(1) : Duration.ofSeconds(3);
        Duration measure = options.quick() ? Duration.ofSeconds(1) : Duration.ofSeconds(5);
        int rounds = options.quick() ? 1 : ROUNDS;
        try (OneBotLoad load = new OneBotLoad(); InstantBot floor = new InstantBot()) {
            PulseBusServer server = ServerFixture.start(options, "adapter", ONEBOT);
            Row flood;
            try {
                URI ours = URI.create("ws://127.0.0.1:" + server.port() + InstantBot.PATH);
                flood = flood(load, floor.uri(), ours, rounds, warmup, measure);
                rows.add(flood);
                Duration shortWarmup = warmup.dividedBy(3).plusSeconds(1);
                rows.add(roundtrip(load, floor.uri(), ours, rounds, shortWarmup, measure, RATE));
                rows.add(roundtrip(load, floor.uri(), ours, rounds, shortWarmup, measure, RATE_3K));
            } finally {
                server.close();
            }
            // the server as ./pulsebus launches it, in a JVM of its own: its memory, and its CPU per message
            OneBotRss.Result rss = OneBotRss.run(load, options.dataDir(),
                    options.quick() ? Duration.ofSeconds(1) : Duration.ofSeconds(5),
                    options.quick() ? Duration.ofSeconds(5) : Duration.ofSeconds(60));
            if (!rss.cpuNote().isEmpty()) {
                rows.set(rows.indexOf(flood), flood.withNote(flood.note() + "; " + rss.cpuNote()));
            }
            rows.add(rss.row());
        }
        rows.add(telegramRoundtrip(options, rounds, warmup, measure));
        rows.add(IrcRoundtrip.run(options, rounds));
        return rows;
    }

    /**
     * {@code adapter.telegram_roundtrip}: a real server polling {@link FakeTelegram} on loopback, updates due on
     * a schedule, each timed from its scheduled send until the reply's sendMessage reached the fake.
     */
    private static Row telegramRoundtrip(BenchOptions options, int rounds, Duration warmup, Duration measure)
            throws Exception {
        List<Histogram> floorRounds = new ArrayList<>();
        List<Histogram> ourRounds = new ArrayList<>();
        long unanswered = 0;
        long batched = 0;
        try (FakeTelegram api = new FakeTelegram(); FakeTelegram floorApi = new FakeTelegram();
             TelegramFloorBot floor = new TelegramFloorBot(floorApi.url());
             PulseBusServer server = ServerFixture.start(options, "telegram", """

                [adapters.telegram]
                mode = "polling"
                token = "%s"
                api_url = "%s"
                """.formatted(TelegramUpdates.TOKEN, api.url()))) {
            floor.start();
            for (int round = 1; round <= rounds; round++) {
                Progress.print("adapter.telegram_roundtrip: round " + round + ", do-nothing bot at "
                        + (long) TELEGRAM_RATE + "/s");
                floorRounds.add(floorApi.openLoop(TELEGRAM_RATE, warmup, measure).latencyNanos());
                Progress.print("adapter.telegram_roundtrip: round " + round + ", pulsebus at " + (long) TELEGRAM_RATE
                        + "/s");
                FakeTelegram.Result r = api.openLoop(TELEGRAM_RATE, warmup, measure);
                ourRounds.add(r.latencyNanos());
                unanswered += r.unanswered();
                batched += r.batched();
            }
        }
        double floor50 = ServerFixture.medianUs(floorRounds, 50);
        double floor99 = ServerFixture.medianUs(floorRounds, 99);
        double p50 = ServerFixture.medianUs(ourRounds, 50);
        double p99 = ServerFixture.medianUs(ourRounds, 99);
        boolean met = unanswered == 0 && ourRounds.stream().allMatch(h -> h.getTotalCount() > 0)
                && p99 <= TELEGRAM_P99_TARGET_US;
        Row row = ServerFixture.row("adapter", "adapter.telegram_roundtrip", "us", null, ourRounds.get(0), null,
                ServerFixture.peers("noop_floor", floor99), String.format(Locale.ROOT, "/echo@bot hi updates to %d supergroups in turn, due on"
                        + " a schedule at %.0f/s, each carried by the answer to a held getUpdates of an"
                        + " in-process Bot API on loopback (the JDK's HTTP server), timed from its scheduled send"
                        + " until the reply's sendMessage reached that Bot API (an answer carries every update due"
                        + " by then: one while the poller keeps up; %d answers carried more); each percentile the"
                        + " median of %d rounds' interleaved with a do-nothing bot on the same transport (floor p50"
                        + " %.0f us, p99 %.0f us; ours/floor p50 %.2fx, p99 %.2fx); %d sent but not answered within"
                        + " 2 s of the last; target p99 <= %.0f us: %s", TelegramUpdates.CHATS, TELEGRAM_RATE, batched,
                        rounds, floor50, floor99, p50 / floor50, p99 / floor99, unanswered, TELEGRAM_P99_TARGET_US,
                        met ? "met"
                                : "MISSED (p50 " + Math.round(p50) + " us, p99 " + Math.round(p99) + " us, "
                                + unanswered + " unanswered)"));
        System.out.printf(Locale.ROOT, "Telegram do-nothing bot (floor) at %.0f/s: p50 %.0f us, p99 %.0f us (median"
                + " of %d rounds)%n", TELEGRAM_RATE, floor50, floor99, rounds);
        return ServerFixture.medianOfRounds(row, ourRounds);
    }

    private static Row flood(OneBotLoad load, URI floor, URI ours, int rounds, Duration warmup, Duration measure)
            throws Exception {
        List<Double> floorRates = new ArrayList<>();
        List<Double> ourRates = new ArrayList<>();
        List<Double> bytes = new ArrayList<>();
        long unanswered = 0;
        for (int round = 1; round <= rounds; round++) {
            Progress.print("adapter.onebot11_flood: round " + round + ", do-nothing bot");
            floorRates.add(load.flood(floor, WINDOW, warmup, measure).perSecond());
            Progress.print("adapter.onebot11_flood: round " + round + ", pulsebus");
            long a0 = ServerFixture.allocatedBytes();
            OneBotLoad.Result r = load.flood(ours, WINDOW, warmup, measure);
            double messages = r.answered() * (warmup.toNanos() + measure.toNanos()) / (double) measure.toNanos();
            bytes.add(messages == 0 ? 0 : (ServerFixture.allocatedBytes() - a0) / messages);
            ourRates.add(r.perSecond());
            unanswered += r.unanswered();
        }
        double rate = ServerFixture.median(ourRates);
        double floorRate = ServerFixture.median(floorRates);
        return new Row("adapter", "adapter.onebot11_flood", "ops/s", rate, null, null, null, null, null,
                ServerFixture.median(bytes), rounds, ServerFixture.peers("noop_floor", floorRate),
                String.format(Locale.ROOT, "/echo hi group messages over %d groups on one reverse WebSocket, %d in"
                        + " flight, each answered (send_group_msg in, its response out); ops/s counts messages in"
                        + " and answered, the median of %d rounds interleaved with the do-nothing bot (%.2fx of"
                        + " it); B/op is the whole process (client included) per message; %d sent but not"
                        + " answered; target >= 50 k messages/s: %s; >= %.1fx the do-nothing bot in the same"
                        + " rounds: %s", V11Frames.GROUPS, WINDOW, rounds, rate / floorRate, unanswered,
                        rate >= FLOOD_TARGET ? "met" : "MISSED", FLOOD_FLOOR_RATIO,
                        rate / floorRate >= FLOOD_FLOOR_RATIO ? "met"
                                : String.format(Locale.ROOT, "MISSED (%.2fx)", rate / floorRate)))
                .withRounds(ourRates);
    }

    /**
     * {@code adapter.onebot11_roundtrip} at 1 k/s, {@code adapter.onebot11_roundtrip_3k} at 3 k/s: open loop,
     * in rounds interleaved with the do-nothing bot at the same rate; the floor's p99 is the row's
     * {@code noop_floor} peer.
     */
    private static Row roundtrip(OneBotLoad load, URI floor, URI ours, int rounds, Duration warmup, Duration measure,
                                 double rate) throws Exception {
        String name = rate == RATE ? "adapter.onebot11_roundtrip" : "adapter.onebot11_roundtrip_3k";
        List<Histogram> floorRounds = new ArrayList<>();
        List<Histogram> ourRounds = new ArrayList<>();
        long unanswered = 0;
        long floorUnanswered = 0;
        for (int round = 1; round <= rounds; round++) {
            Progress.print(name + ": round " + round + ", do-nothing bot at " + (long) rate + "/s");
            OneBotLoad.Result f = load.openLoop(floor, rate, warmup, measure);
            floorRounds.add(f.latencyNanos());
            floorUnanswered += f.unanswered();
            Progress.print(name + ": round " + round + ", pulsebus at " + (long) rate + "/s");
            OneBotLoad.Result r = load.openLoop(ours, rate, warmup, measure);
            ourRounds.add(r.latencyNanos());
            unanswered += r.unanswered();
        }
        double p50 = ServerFixture.medianUs(ourRounds, 50);
        double p99 = ServerFixture.medianUs(ourRounds, 99);
        double p999 = ServerFixture.medianUs(ourRounds, 99.9);
        double floor50 = ServerFixture.medianUs(floorRounds, 50);
        double floor99 = ServerFixture.medianUs(floorRounds, 99);
        double floor999 = ServerFixture.medianUs(floorRounds, 99.9);
        String target;
        if (rate == RATE) {
            boolean met = p50 <= P50_TARGET_US && p99 <= P99_TARGET_US;
            target = String.format(Locale.ROOT, "target p50 <= %.0f us, p99 <= %.0f us: %s", P50_TARGET_US,
                    P99_TARGET_US, met ? "met" : "MISSED (" + (p50 > P50_TARGET_US ? "p50" : "")
                            + (p50 > P50_TARGET_US && p99 > P99_TARGET_US ? ", " : "")
                            + (p99 > P99_TARGET_US ? "p99" : "") + ")");
        } else {
            boolean met = p99 <= P99_3K_FLOOR_RATIO * floor99 && unanswered == 0;
            target = String.format(Locale.ROOT, "target p99 <= %.0fx the do-nothing bot's in the same rounds (<= %.0f"
                    + " us), none unanswered: %s", P99_3K_FLOOR_RATIO, P99_3K_FLOOR_RATIO * floor99, met ? "met"
                    : String.format(Locale.ROOT, "MISSED (p99 %.0f us, %.2fx; %d unanswered)", p99, p99 / floor99,
                            unanswered));
        }
        Row row = ServerFixture.row("adapter", name, "us", null, ourRounds.get(0), null,
                ServerFixture.peers("noop_floor", floor99), String.format(Locale.ROOT, "/echo hi group messages in,"
                        + " paced open loop at %.0f/s over one reverse WebSocket, each timed from its scheduled send"
                        + " until its send_group_msg reached the implementation (which answers it); %d rounds"
                        + " interleaved with the do-nothing bot at the same rate, each percentile the median of the"
                        + " rounds'; noop_floor is the do-nothing bot's p99; ours p50 %.0f us, p99 %.0f us, p99.9 %.0f"
                        + " us; floor p50 %.0f us, p99 %.0f us, p99.9 %.0f us (ours/floor p50 %.2fx, p99 %.2fx,"
                        + " p99.9 %.2fx); %d sent but not answered (the floor: %d); %s", rate, rounds, p50, p99,
                        p999, floor50, floor99, floor999, p50 / floor50, p99 / floor99, p999 / floor999, unanswered,
                        floorUnanswered, target));
        System.out.printf(Locale.ROOT, "do-nothing bot (floor) at %.0f/s: p50 %.0f us, p99 %.0f us, p99.9 %.0f us"
                + " (median of %d rounds)%n", rate, floor50, floor99, floor999, rounds);
        return ServerFixture.medianOfRounds(row, ourRounds);
    }

}
