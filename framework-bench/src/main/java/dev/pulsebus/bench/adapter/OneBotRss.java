package dev.pulsebus.bench.adapter;

import dev.pulsebus.bench.harness.Launched;
import dev.pulsebus.bench.harness.Progress;
import dev.pulsebus.bench.harness.Row;
import dev.pulsebus.bench.harness.ServerFixture;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code adapter.onebot11_rss}: the server launched by the checkout's {@code ./pulsebus} in a JVM of its own
 * (the launcher's JDK, sizing and startup cache, a config with the OneBot v11 adapter in {@code reverse-ws}
 * mode), idle 2 s after {@code /health} answers, then flooded by {@link OneBotLoad} as
 * {@code adapter.onebot11_flood} floods it (a short warm-up flood, then the measured one); its RSS from
 * {@code /proc} idle, at its peak ({@code VmHWM}: the whole life of the process) and 2 s after the flood, and
 * its CPU time over the measured flood per message answered. The floor: the do-nothing bot
 * ({@link InstantBotMain}) launched with the same java and JVM options (no cache), measured the same way.
 */
final class OneBotRss {

    private static final double PEAK_TARGET_MB = 128;
    private static final double IDLE_TARGET_MB = 90;
    /** The target for the server's CPU per {@code /echo}, transcripts on. */
    static final double CPU_TARGET_US = 15;
    private static final long IDLE_MILLIS = 2000;

    /** The row, and what the flood row's note quotes from it (empty when it was not measured). */
    record Result(Row row, String cpuNote) {
    }

    /** One process's figures: memory idle, after the flood (its peak included), the flood's rate and CPU. */
    private record Measured(Launched.Memory idle, Launched.Memory after, double perSecond, double cpuUsPerMessage,
                            long unanswered) {
    }

    private OneBotRss() {
    }

    static Result run(OneBotLoad load, Path dataDir, Duration warmup, Duration measure) throws Exception {
        Path launcher = Launched.pulsebus();
        if (launcher == null) {
            return new Result(ServerFixture.row("adapter", "adapter.onebot11_rss", "B", null, null, null,
                    ServerFixture.peers(), "skipped: no ./pulsebus in the checkout above framework-bench/"), "");
        }
        Path work = Files.createDirectories(dataDir.resolve("onebot-rss"));
        Path config = Launched.oneBotConfig(work);
        Path errors = work.resolve("stderr.txt");
        Progress.print("adapter.onebot11_rss: a first ./pulsebus launch (it writes its startup cache if it has none)");
        try (Launched first = Launched.pulsebus(launcher, config, errors)) {
            first.awaitHealth();
        }
        Measured ours;
        List<String> options;
        String java;
        boolean cached;
        try (Launched server = Launched.pulsebus(launcher, config, errors)) {
            server.awaitHealth();
            options = server.jvmOptions();
            java = server.commandLine().get(0);
            cached = server.fromCache();
            ours = measure("./pulsebus", server, load, warmup, measure);
        }
        List<String> cmd = new ArrayList<>(List.of(java));
        cmd.addAll(options);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), InstantBotMain.class.getName()));
        Measured floor;
        try (Launched bot = Launched.start(cmd, launcher.getParent(), work.resolve("bot-stderr.txt"))) {
            floor = measure("the do-nothing bot", bot, load, warmup, measure);
        }
        double peak = ours.after().peak() / Launched.MB;
        double idle = ours.idle().rss() / Launched.MB;
        boolean cpuMet = ours.cpuUsPerMessage() <= CPU_TARGET_US;
        String note = String.format(Locale.ROOT, "./pulsebus --config (OneBot v11 reverse-ws on, all else default) in"
                        + " a JVM of its own, %s; JVM options as ./pulsebus gave them: %s. RSS from /proc (MB = 2^20"
                        + " B): idle %d s after /health answered %s; peak (VmHWM, the B figure) %.1f MB; 2 s after"
                        + " a %d s flood (/echo hi over %d groups, %d in flight, after a %d s warm-up flood) %s; the"
                        + " flood %.0f messages/s, %d sent but not answered; server CPU (utime+stime) per message"
                        + " answered %.1f us. Floor: the do-nothing bot in a JVM with the same java and options,"
                        + " measured alike: idle %s, peak %.1f MB, after %s, %.0f messages/s, CPU %.1f us per"
                        + " message (ours/floor: peak %.2fx, CPU %.2fx, flood %.2fx); targets peak <= %.0f MB: %s;"
                        + " idle <= %.0f MB: %s; CPU <= %.0f us per /echo: %s",
                cached ? "started from its startup cache" : "started WITHOUT a startup cache (./pulsebus kept none)",
                String.join(" ", options), IDLE_MILLIS / 1000, ours.idle().describe(), peak, measure.toSeconds(),
                V11Frames.GROUPS, AdapterSuite.WINDOW, warmup.toSeconds(), ours.after().describe(), ours.perSecond(),
                ours.unanswered(), ours.cpuUsPerMessage(), floor.idle().describe(),
                floor.after().peak() / Launched.MB, floor.after().describe(), floor.perSecond(),
                floor.cpuUsPerMessage(), ours.after().peak() / (double) floor.after().peak(),
                ours.cpuUsPerMessage() / floor.cpuUsPerMessage(), ours.perSecond() / floor.perSecond(),
                PEAK_TARGET_MB, verdict(peak, PEAK_TARGET_MB, " MB"), IDLE_TARGET_MB,
                verdict(idle, IDLE_TARGET_MB, " MB"), CPU_TARGET_US,
                verdict(ours.cpuUsPerMessage(), CPU_TARGET_US, " us"));
        String cpuNote = String.format(Locale.ROOT, "server CPU per message answered (process CPU / messages, from"
                        + " adapter.onebot11_rss: the server launched by ./pulsebus in a JVM of its own, a %d s flood"
                        + " like this one): %.1f us, the do-nothing bot's measured alike %.1f us (%.2fx); target <= %.0f"
                        + " us per /echo with transcripts on: %s", measure.toSeconds(), ours.cpuUsPerMessage(),
                floor.cpuUsPerMessage(), ours.cpuUsPerMessage() / floor.cpuUsPerMessage(), CPU_TARGET_US,
                cpuMet ? "met" : "MISSED");
        Row row = new Row("adapter", "adapter.onebot11_rss", "B", null, null, null, null, null, null,
                (double) ours.after().peak(), 1, ServerFixture.peers("noop_floor", (double) floor.after().peak()), note);
        return new Result(row, cpuNote);
    }

    /** "met", or "MISSED (97.3 MB)". */
    private static String verdict(double value, double target, String unit) {
        return value <= target ? "met" : String.format(Locale.ROOT, "MISSED (%.1f%s)", value, unit);
    }

    /** Idle memory, a warm-up flood, the measured flood with the process's CPU around it, memory 2 s later. */
    private static Measured measure(String who, Launched p, OneBotLoad load, Duration warmup, Duration measure)
            throws Exception {
        Thread.sleep(IDLE_MILLIS);
        Launched.Memory idle = p.memory();
        URI uri = URI.create("ws://" + p.url().getHost() + ":" + p.url().getPort() + InstantBot.PATH);
        Progress.print("adapter.onebot11_rss: " + who + ", a " + warmup.toSeconds() + " s warm-up flood");
        load.flood(uri, AdapterSuite.WINDOW, Duration.ZERO, warmup);
        Progress.print("adapter.onebot11_rss: " + who + ", a " + measure.toSeconds() + " s flood");
        long cpu0 = p.cpuNanos();
        OneBotLoad.Result r = load.flood(uri, AdapterSuite.WINDOW, Duration.ZERO, measure);
        long cpu = p.cpuNanos() - cpu0;
        Thread.sleep(IDLE_MILLIS);
        return new Measured(idle, p.memory(), r.perSecond(),
                r.answered() == 0 || cpu0 < 0 ? Double.NaN : cpu / 1e3 / r.answered(), r.unanswered());
    }
}
