package dev.pulsebus.bench.harness;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulsebus.bus.EventBus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import jdk.jfr.Recording;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FlameGraphsTest {

    @TempDir
    Path dir;

    @Test
    void aRecordingOfTheBusGetsAFlameGraphBesideItThatNamesPulseBusFrames() throws Exception {
        Path jfr = dir.resolve("profile").resolve("event.jfr");
        Files.createDirectories(jfr.getParent());
        LongAdder seen = new LongAdder();
        try (Recording r = new Recording(jdk.jfr.Configuration.getConfiguration("profile"));
             EventBus bus = EventBus.builder().build()) {
            bus.subscribe(String.class, s -> seen.add(s.length()));
            r.start();
            long until = System.nanoTime() + 1_500_000_000L; // samples every 10-20 ms: enough to see the bus
            while (System.nanoTime() < until) {
                for (int i = 0; i < 10_000; i++) {
                    bus.publish("e");
                }
            }
            r.stop();
            r.dump(jfr);
        }

        List<Path> graphs = FlameGraphs.render(dir.resolve("profile"));

        assertThat(graphs).containsExactly(dir.resolve("profile").resolve("event.html"));
        String html = Files.readString(graphs.get(0));
        assertThat(html).contains("<html");
        assertThat(frames(html)).anyMatch(f -> f.startsWith("dev/pulsebus/bus/") && f.endsWith(".publish"));
        assertThat(seen.sum()).isPositive();
    }

    /**
     * The frame names of an async-profiler flame graph: its {@code cpool} lists them sorted, each as one
     * character saying how many leading characters it shares with the one before (the character's code
     * minus 32), then the rest.
     */
    private static List<String> frames(String html) {
        int from = html.indexOf("const cpool = [");
        int to = html.indexOf("];", from);
        List<String> frames = new java.util.ArrayList<>();
        String previous = "";
        for (String line : html.substring(from, to).split("\n")) {
            if (line.length() < 3 || line.charAt(0) != '\'') {
                continue;
            }
            String entry = line.substring(1, line.lastIndexOf('\''));
            String name = frames.isEmpty() ? entry : previous.substring(0, entry.charAt(0) - 32) + entry.substring(1);
            frames.add(name);
            previous = name;
        }
        return frames;
    }
}
