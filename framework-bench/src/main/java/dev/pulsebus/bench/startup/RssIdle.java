package dev.pulsebus.bench.startup;

import dev.pulsebus.bench.harness.Launched;
import dev.pulsebus.bench.harness.Progress;
import dev.pulsebus.bench.harness.Row;
import dev.pulsebus.bench.harness.ServerFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code startup.rss_idle}: the server launched as a user launches it, by the checkout's {@code ./pulsebus}
 * (its JDK, its JVM sizing, its startup cache, {@code PULSEBUS_JAVA_OPTS} as the environment has it) with
 * a config that turns the OneBot v11 adapter on in {@code reverse-ws} mode, until {@code /health}
 * answers; then 2 s idle, and the JVM's RSS and peak RSS from {@code /proc}. The floor, {@code bare_netty}:
 * the bare Netty HTTP server, launched with the same java and the JVM options the server's JVM was given
 * (its startup cache left out), in turn with it. A first launch, not measured, lets {@code ./pulsebus}
 * write its cache (or build its jar) as a user's first start does.
 */
final class RssIdle {

    /** The target: RSS after start, idle. */
    static final double TARGET_MB = 90;
    private static final long IDLE_MILLIS = 2000;

    private RssIdle() {
    }

    static Row run(int rounds, Path dir, String bareClassPath) throws Exception {
        Path launcher = Launched.pulsebus();
        if (launcher == null) {
            return ServerFixture.row("startup", "startup.rss_idle", "B", null, null, null, ServerFixture.peers(),
                    "skipped: no ./pulsebus in the checkout above framework-bench/");
        }
        Path work = Files.createDirectories(dir.resolve("rss"));
        Path config = Launched.oneBotConfig(work);
        Path errors = work.resolve("stderr.txt");
        Progress.print("startup.rss_idle: a first ./pulsebus launch (it writes its startup cache if it has none)");
        try (Launched first = Launched.pulsebus(launcher, config, errors)) {
            first.awaitHealth();
        }
        List<Launched.Memory> ours = new ArrayList<>();
        List<Launched.Memory> bare = new ArrayList<>();
        List<String> options = List.of();
        String java = "java";
        boolean cached = false;
        for (int i = 0; i < rounds; i++) {
            Progress.print("startup.rss_idle: round " + (i + 1) + " of " + rounds + ", ./pulsebus then bare Netty");
            try (Launched server = Launched.pulsebus(launcher, config, errors)) {
                server.awaitHealth();
                Thread.sleep(IDLE_MILLIS);
                ours.add(server.memory());
                options = server.jvmOptions();
                java = server.commandLine().get(0);
                cached = server.fromCache();
            }
            List<String> cmd = new ArrayList<>(List.of(java));
            cmd.addAll(options);
            cmd.addAll(List.of("-cp", bareClassPath, BareNetty.class.getName()));
            try (Launched netty = Launched.start(cmd, launcher.getParent(), work.resolve("bare-stderr.txt"))) {
                netty.awaitHealth();
                Thread.sleep(IDLE_MILLIS);
                bare.add(netty.memory());
            }
        }
        Launched.Memory med = median(ours);
        Launched.Memory bareMed = median(bare);
        double mb = med.rss() / Launched.MB;
        String note = String.format(Locale.ROOT, "./pulsebus --config (OneBot v11 reverse-ws on, all else default)"
                        + " until /health answers, then %d s idle; the JVM's RSS from /proc (VmRSS; MB = 2^20 B), the"
                        + " median of %d launches: %s, peak (VmHWM) %.1f MB; %s; JVM options as ./pulsebus gave"
                        + " them: %s. Floor: bare Netty's HTTP server with the same java and options (no cache):"
                        + " %s, peak %.1f MB (ours/floor %.2fx, +%.1f MB); target <= %.0f MB idle: %s",
                IDLE_MILLIS / 1000, ours.size(), med.describe(), med.peak() / Launched.MB,
                cached ? "started from its startup cache" : "started WITHOUT a startup cache (./pulsebus kept none)",
                String.join(" ", options), bareMed.describe(), bareMed.peak() / Launched.MB,
                med.rss() / (double) bareMed.rss(), (med.rss() - bareMed.rss()) / Launched.MB, TARGET_MB,
                mb <= TARGET_MB ? "met" : String.format(Locale.ROOT, "MISSED (%.1f MB)", mb));
        return new Row("startup", "startup.rss_idle", "B", null, null, null, null, null, null, (double) med.rss(),
                ours.size(), ServerFixture.peers("bare_netty", (double) bareMed.rss()), note);
    }

    /** The launch whose RSS is the median (the lower middle one for an even count). */
    static Launched.Memory median(List<Launched.Memory> all) {
        List<Launched.Memory> sorted = all.stream().sorted((a, b) -> Long.compare(a.rss(), b.rss())).toList();
        return sorted.get((sorted.size() - 1) / 2);
    }
}
