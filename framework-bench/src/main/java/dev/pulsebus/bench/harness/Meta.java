package dev.pulsebus.bench.harness;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Where and on what a run happened: enough to tell whether two runs can be compared. */
record Meta(String timestamp, String pulsebus, String commit, String jdk, List<String> vmArgs, String os,
            String cpu, int cores, String backend, boolean quick) {

    static Meta current(BenchOptions options, List<String> forkArgs) {
        return new Meta(Instant.now().truncatedTo(ChronoUnit.SECONDS).toString(),
                System.getProperty("pulsebus.version", "unknown"),
                gitCommit(),
                Runtime.version().toString(),
                forkArgs,
                System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                        + System.getProperty("os.arch"),
                cpuModel(),
                Runtime.getRuntime().availableProcessors(),
                options.backend,
                options.quick);
    }

    /** The arguments this JVM was started with, which the measured forks inherit. */
    static List<String> hostVmArgs() {
        return List.copyOf(ManagementFactory.getRuntimeMXBean().getInputArguments());
    }

    private static String gitCommit() {
        try {
            Process p = new ProcessBuilder("git", "describe", "--always", "--dirty", "--abbrev=7")
                    .redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0 && !out.isEmpty() ? out : "unknown";
        } catch (IOException e) {
            return "unknown";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown";
        }
    }

    private static String cpuModel() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    return line.substring(line.indexOf(':') + 1).trim();
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or not readable: fall through
        }
        return System.getProperty("os.arch");
    }
}
