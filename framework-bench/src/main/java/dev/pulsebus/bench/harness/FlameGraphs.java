package dev.pulsebus.bench.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import one.convert.Arguments;
import one.convert.JfrToFlame;

/**
 * A flame graph beside each JFR recording of a {@code --profile} run: a self-contained HTML page drawn by
 * async-profiler's converter ({@code tools.profiler:jfr-converter}) from the recording's CPU samples,
 * written next to it with the same name ({@code event.jfr} → {@code event.html}).
 */
final class FlameGraphs {

    private FlameGraphs() {
    }

    /** Draws the flame graph of every {@code .jfr} below {@code dir} that has none yet; returns every graph. */
    static List<Path> render(Path dir) throws IOException {
        List<Path> graphs = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return graphs;
        }
        List<Path> recordings;
        try (Stream<Path> files = Files.walk(dir)) {
            recordings = files.filter(p -> p.getFileName().toString().endsWith(".jfr")).sorted().toList();
        }
        for (Path jfr : recordings) {
            String name = jfr.getFileName().toString();
            Path html = jfr.resolveSibling(name.substring(0, name.length() - ".jfr".length()) + ".html");
            if (!Files.exists(html)) {
                JfrToFlame.convert(jfr.toString(), html.toString(),
                        new Arguments("--title", "PulseBus " + dir.relativize(jfr)));
            }
            graphs.add(html);
        }
        return graphs;
    }
}
