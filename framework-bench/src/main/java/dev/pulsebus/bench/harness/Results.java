package dev.pulsebus.bench.harness;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The whole of {@code results.json}: the run's {@link Meta} and its rows, in the format ResultsTest pins. A peer
 * is its figure (a number), or, where the row has the peer's own percentiles ({@link Row#peerPercentiles()}), an
 * object of them: {@code {"p50_us": 1180.0, "p99_us": 5820.0}}, its figure being its p99.
 */
record Results(Meta meta, List<Row> results) {

    static final ObjectMapper JSON = new ObjectMapper()
            .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .setDefaultPropertyInclusion(JsonInclude.Include.ALWAYS)
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)
            .enable(SerializationFeature.INDENT_OUTPUT);

    Results {
        results = List.copyOf(results);
    }

    /** Writes atomically: a reader never sees half a file. */
    void write(Path file) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, file.getFileName().toString(), ".tmp");
        JsonNode tree = JSON.valueToTree(this);
        for (int i = 0; i < results.size(); i++) {
            ObjectNode peers = (ObjectNode) tree.get("results").get(i).get("peers");
            results.get(i).peerPercentiles().forEach((peer, p) ->
                    peers.putObject(peer).put("p50_us", p.p50Us()).put("p99_us", p.p99Us()));
        }
        JSON.writeValue(tmp.toFile(), tree);
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    static Results read(Path file) throws IOException {
        JsonNode tree = JSON.readTree(file.toFile());
        List<Map<String, Row.Percentiles>> percentiles = new ArrayList<>();
        for (JsonNode row : tree.path("results")) {
            Map<String, Row.Percentiles> own = new LinkedHashMap<>();
            if (row instanceof ObjectNode o) {
                o.remove("peer_percentiles"); // only ever read from the peers themselves
            }
            if (row.get("peers") instanceof ObjectNode peers) {
                for (Map.Entry<String, JsonNode> peer : peers.properties()) {
                    JsonNode p = peer.getValue();
                    if (p.isObject()) {
                        if (!p.path("p50_us").isNumber() || !p.path("p99_us").isNumber()) {
                            throw new IOException(file + ": peer " + peer.getKey() + " of " + row.path("name").asText()
                                    + " is an object without p50_us and p99_us");
                        }
                        own.put(peer.getKey(), new Row.Percentiles(p.get("p50_us").asDouble(), p.get("p99_us").asDouble()));
                    }
                }
                own.forEach((peer, p) -> peers.put(peer, p.p99Us()));
            }
            percentiles.add(own);
        }
        Results read = JSON.treeToValue(tree, Results.class);
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < read.results().size(); i++) {
            Row r = read.results().get(i);
            for (Map.Entry<String, Row.Percentiles> p : percentiles.get(i).entrySet()) {
                r = r.withPeerPercentiles(p.getKey(), p.getValue().p50Us(), p.getValue().p99Us());
            }
            rows.add(r);
        }
        return new Results(read.meta(), rows);
    }
}
