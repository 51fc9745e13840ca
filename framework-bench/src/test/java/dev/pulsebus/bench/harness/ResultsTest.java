package dev.pulsebus.bench.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ResultsTest {

    @TempDir
    Path dir;

    private static Results sample() {
        Map<String, Double> peers = new LinkedHashMap<>();
        peers.put("guava_eventbus", 1.1e7);
        peers.put("direct_call", 2.4e8);
        Row fast = new Row("event", "event.single_handler", "ops/s", 5.1e7, null, null, null, null, null, 0.0,
                5, peers, "");
        Row timed = new Row("event", "event.flood_1000", "ops/s", 4.9e7, 17.0, 20.0, 37.0, 84.0, 2769.0, 0.0,
                5, peers, "per round");
        Meta meta = new Meta("2026-11-30T06:00:00Z", "0.1.0", "abc1234", "25.0.3", List.of("-Xmx1g"),
                "Linux 6.x", "AMD EPYC", 2, "sqlite", false);
        return new Results(meta, List.of(fast, timed));
    }

    @Test
    void writesTheFieldsOfTheBenchContract() throws Exception {
        Path file = dir.resolve("results.json");
        sample().write(file);

        JsonNode root = Results.JSON.readTree(file.toFile());
        assertThat(names(root.get("meta"))).containsExactly("timestamp", "pulsebus", "commit", "jdk", "vm_args",
                "os", "cpu", "cores", "backend", "quick");
        JsonNode row = root.get("results").get(0);
        assertThat(names(row)).contains("suite", "name", "unit", "ops_per_sec", "p50_us", "p90_us", "p99_us",
                "p999_us", "max_us", "alloc_bytes_per_op", "samples", "peers", "note");
        assertThat(row.get("p50_us").isNull()).isTrue();
        assertThat(row.get("peers").get("guava_eventbus").asDouble()).isEqualTo(1.1e7);
        assertThat(root.get("results").get(1).get("p999_us").asDouble()).isEqualTo(84.0);
    }

    @Test
    void roundTripsThroughJson() throws Exception {
        Path file = dir.resolve("baseline.json");
        Results original = sample();
        original.write(file);

        assertThat(Results.read(file)).isEqualTo(original);
        assertThat(Files.list(dir)).containsExactly(file); // the temp file was moved into place
    }

    @Test
    void writesALatencyPeersOwnPercentilesAsAnObjectAndReadsThemBack() throws Exception {
        Path file = dir.resolve("e2e.json");
        Row e2e = new Row("cluster", "cluster.e2e_roundtrip", "us", null, 5660.0, 9000.0, 22000.0, 40000.0, 61000.0,
                null, 7500, Map.of(), "two servers").withRounds(List.of(5600.0, 5660.0, 5700.0))
                .withPeerPercentiles("single_server", 1180.0, 5820.0);
        Results original = new Results(sample().meta(), List.of(sample().results().get(0), e2e));
        original.write(file);

        JsonNode peer = Results.JSON.readTree(file.toFile()).get("results").get(1).get("peers").get("single_server");
        assertThat(peer.get("p50_us").asDouble()).isEqualTo(1180.0);
        assertThat(peer.get("p99_us").asDouble()).isEqualTo(5820.0);
        Results read = Results.read(file);
        assertThat(read).isEqualTo(original);
        Row back = read.results().get(1);
        assertThat(back.peers()).containsEntry("single_server", 5820.0); // what the row is set against: its p99
        assertThat(back.ratioTo("single_server")).isCloseTo(22000.0 / 5820.0, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(read.results().get(0).peerPercentiles()).isEmpty();
    }

    @Test
    void aPeerObjectWithoutItsPercentilesIsRefusedWhenRead() throws Exception {
        Path file = dir.resolve("bad.json");
        sample().write(file);
        JsonNode root = Results.JSON.readTree(file.toFile());
        ((ObjectNode) root.get("results").get(0).get("peers"))
                .putObject("single_server").put("p50_us", 1180.0);
        Results.JSON.writeValue(file.toFile(), root);

        assertThatThrownBy(() -> Results.read(file))
                .isInstanceOf(IOException.class).hasMessageContaining("peer single_server of event.single_handler");
    }

    @Test
    void ratioIsOursOverThePeers() {
        Row row = sample().results().get(0);
        assertThat(row.ratioTo("guava_eventbus")).isCloseTo(5.1e7 / 1.1e7, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(row.ratioTo("nobody")).isNull();
    }

    @Test
    void tableShowsEveryRowWithItsPeersAndRatios() {
        String table = Table.render(sample());
        assertThat(table).contains("event.single_handler").contains("51.0 M").contains("11.0 M (4.64x)")
                .contains("event.flood_1000: per round");
    }

    private static List<String> names(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
