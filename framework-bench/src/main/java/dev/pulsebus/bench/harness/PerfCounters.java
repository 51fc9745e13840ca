package dev.pulsebus.bench.harness;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * Whether {@code perf stat -e instructions} counts on this machine (a container or a VM often has no
 * hardware counters: perf answers {@code <not supported>}). Where it does, the in-process rows run with
 * JMH's {@code perfnorm} profiler and report instructions per operation; where it does not, each says so.
 */
final class PerfCounters {

    /** The note a row carries when instructions cannot be counted here. */
    static final String NOT_COUNTED = "instructions/op not counted: perf stat -e instructions is not supported here";

    private static volatile Boolean available;

    private PerfCounters() {
    }

    static boolean instructions() {
        Boolean a = available;
        if (a == null) {
            available = a = probe();
        }
        return a;
    }

    private static boolean probe() {
        try {
            Process p = new ProcessBuilder("perf", "stat", "-x,", "-e", "instructions", "true")
                    .redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0
                    && out.contains("instructions") && !out.contains("<not supported>") && !out.contains("<not counted>");
        } catch (IOException e) {
            return false; // no perf at all
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
