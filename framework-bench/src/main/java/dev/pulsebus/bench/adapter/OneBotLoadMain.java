package dev.pulsebus.bench.adapter;

import dev.pulsebus.bench.harness.Launched;
import java.net.URI;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;

/**
 * The load client against any OneBot v11 bot's reverse WebSocket ({@code --onebot-target URI [--pid N]
 * [--seconds S]} as the benchmark's arguments): a flood as {@code adapter.onebot11_flood}'s, then open
 * loops at 1 k/s and 3 k/s as the round-trip rows', each after a warm-up, printed as it goes; with
 * {@code --pid}, the bot's RSS (idle, after, peak) and CPU per message answered, as
 * {@code adapter.onebot11_rss} reports PulseBus's. How another framework is compared with PulseBus.
 */
public final class OneBotLoadMain {

    private OneBotLoadMain() {
    }

    /** Runs it; returns the exit status (2 on bad arguments). */
    public static int run(String[] args) throws Exception {
        URI target = null;
        long pid = -1;
        long seconds = 60;
        for (int i = 0; i < args.length; i += 2) { // each flag with its value
            String v = i + 1 < args.length ? args[i + 1] : "";
            switch (args[i]) {
                case "--onebot-target" -> target = URI.create(v);
                case "--pid" -> pid = Long.parseLong(v);
                case "--seconds" -> seconds = Long.parseLong(v);
                case "--out" -> { // the bench profile's, for results this mode does not write
                }
                default -> {
                    System.err.println("usage: --onebot-target ws://HOST:PORT/PATH [--pid N] [--seconds S]");
                    return 2;
                }
            }
        }
        if (target == null) {
            System.err.println("usage: --onebot-target ws://HOST:PORT/PATH [--pid N] [--seconds S]");
            return 2;
        }
        Duration warmup = Duration.ofSeconds(5);
        Duration measure = Duration.ofSeconds(seconds);
        Optional<ProcessHandle> bot = pid < 0 ? Optional.empty() : ProcessHandle.of(pid);
        if (bot.isPresent()) {
            System.out.println("idle: " + Launched.Memory.of(pid).describe());
        }
        try (OneBotLoad load = new OneBotLoad()) {
            load.flood(target, AdapterSuite.WINDOW, Duration.ZERO, warmup);
            long cpu0 = cpu(bot);
            OneBotLoad.Result flood = load.flood(target, AdapterSuite.WINDOW, Duration.ZERO, measure);
            long cpu = cpu(bot) - cpu0;
            System.out.printf(Locale.ROOT, "flood (%d in flight, %d s): %.0f messages/s answered, %d not answered%s%n",
                    AdapterSuite.WINDOW, seconds, flood.perSecond(), flood.unanswered(), bot.isEmpty() || cpu0 < 0
                            ? "" : String.format(Locale.ROOT, ", CPU %.1f us per message", cpu / 1e3 / flood.answered()));
            if (bot.isPresent()) {
                System.out.println("after the flood: " + Launched.Memory.of(pid).describe() + ", peak (VmHWM) "
                        + String.format(Locale.ROOT, "%.1f MB", Launched.Memory.of(pid).peak() / Launched.MB));
            }
            for (double rate : new double[] {AdapterSuite.RATE, AdapterSuite.RATE_3K}) {
                OneBotLoad.Result r = load.openLoop(target, rate, warmup, measure);
                System.out.printf(Locale.ROOT, "open loop at %.0f/s (%d s): p50 %.0f us, p99 %.0f us, p99.9 %.0f us,"
                                + " %d not answered%n", rate, seconds, r.latencyNanos().getValueAtPercentile(50) / 1e3,
                        r.latencyNanos().getValueAtPercentile(99) / 1e3,
                        r.latencyNanos().getValueAtPercentile(99.9) / 1e3, r.unanswered());
            }
        }
        return 0;
    }

    private static long cpu(Optional<ProcessHandle> bot) {
        return bot.flatMap(h -> h.info().totalCpuDuration()).map(Duration::toNanos).orElse(-1L);
    }
}
