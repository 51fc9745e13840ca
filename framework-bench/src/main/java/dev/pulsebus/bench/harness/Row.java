package dev.pulsebus.bench.harness;

import com.fasterxml.jackson.annotation.JsonIgnore;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One row of results, as {@code results.json} holds it (field names in snake case there). Latencies are
 * microseconds; {@code null} where one operation is too short to time on its own. {@code rounds} are the
 * row's headline figure in each measured round (ops/s where the row has throughput, else p50 in
 * microseconds), empty where the row is measured once; {@code spread} is derived from them.
 * {@code peerPercentiles} are a latency peer's own p50 and p99 where the row has them: in {@code results.json}
 * such a peer is an object, {@code "peers": {"single_server": {"p50_us": 1180.0, "p99_us": 5820.0}}}, and
 * {@code peers} holds its p99 here ({@link Results} writes and reads that form).
 */
public record Row(String suite, String name, String unit, Double opsPerSec,
           Double p50Us, Double p90Us, Double p99Us, Double p999Us, Double maxUs,
           Double allocBytesPerOp, int samples, Map<String, Double> peers, String note,
           List<Double> rounds, Spread spread, @JsonIgnore Map<String, Percentiles> peerPercentiles) {

    public Row {
        peers = Collections.unmodifiableMap(new LinkedHashMap<>(peers)); // keeps the suite's peer order
        rounds = rounds == null ? List.of() : List.copyOf(rounds); // a baseline from before rounds has none
        spread = Spread.of(rounds);
        peerPercentiles = peerPercentiles == null ? Map.of()
                : Collections.unmodifiableMap(new LinkedHashMap<>(peerPercentiles));
    }

    /** A row whose peers have no percentiles of their own. */
    Row(String suite, String name, String unit, Double opsPerSec,
        Double p50Us, Double p90Us, Double p99Us, Double p999Us, Double maxUs,
        Double allocBytesPerOp, int samples, Map<String, Double> peers, String note,
        List<Double> rounds, Spread spread) {
        this(suite, name, unit, opsPerSec, p50Us, p90Us, p99Us, p999Us, maxUs, allocBytesPerOp, samples, peers, note,
                rounds, spread, Map.of());
    }

    /** A latency peer's own percentiles, in microseconds. */
    public record Percentiles(double p50Us, double p99Us) {
    }

    /** A row measured once: no rounds. */
    public Row(String suite, String name, String unit, Double opsPerSec,
               Double p50Us, Double p90Us, Double p99Us, Double p999Us, Double maxUs,
               Double allocBytesPerOp, int samples, Map<String, Double> peers, String note) {
        this(suite, name, unit, opsPerSec, p50Us, p90Us, p99Us, p999Us, maxUs, allocBytesPerOp, samples, peers, note,
                List.of(), null);
    }

    /** This row with {@code rounds}. */
    public Row withRounds(List<Double> rounds) {
        return new Row(suite, name, unit, opsPerSec, p50Us, p90Us, p99Us, p999Us, maxUs, allocBytesPerOp, samples,
                peers, note, rounds, null, peerPercentiles);
    }

    /** This row with {@code note} in place of its note. */
    public Row withNote(String note) {
        return new Row(suite, name, unit, opsPerSec, p50Us, p90Us, p99Us, p999Us, maxUs, allocBytesPerOp, samples,
                peers, note, rounds, null, peerPercentiles);
    }

    /**
     * This row with latency peer {@code peer}'s own p50 and p99 (microseconds); the p99 is also its figure in
     * {@link #peers()}, what the row is set against.
     */
    public Row withPeerPercentiles(String peer, double p50Us, double p99Us) {
        Map<String, Double> figures = new LinkedHashMap<>(peers);
        figures.put(peer, p99Us);
        Map<String, Percentiles> percentiles = new LinkedHashMap<>(peerPercentiles);
        percentiles.put(peer, new Percentiles(p50Us, p99Us));
        return new Row(suite, name, unit, opsPerSec, this.p50Us, p90Us, this.p99Us, p999Us, maxUs, allocBytesPerOp,
                samples, figures, note, rounds, null, percentiles);
    }

    /** Whether its rounds lie more than {@link Spread#UNSTABLE_RATIO} apart. */
    boolean unstable() {
        return spread != null && spread.unstable();
    }

    /**
     * What this row is set against its peers on, and so what its peers' figures are: {@link Kind#OPS} where
     * it has throughput (ops/s, higher is better); else {@link Kind#P99} where it has latencies (the peer's
     * p99 in microseconds: the socket rows' do-nothing floor); else {@link Kind#BYTES} (a memory row: the
     * peer's bytes). Null for a row with none of them.
     */
    @Nullable Kind kind() {
        return opsPerSec != null ? Kind.OPS : p99Us != null ? Kind.P99 : allocBytesPerOp != null ? Kind.BYTES : null;
    }

    /** The figures a row is set against its peers on: see {@link #kind()}. */
    enum Kind { OPS, P99, BYTES }

    /** Our figure of {@link #kind()}; null without one. */
    @Nullable Double figure() {
        Kind k = kind();
        return k == null ? null : switch (k) {
            case OPS -> opsPerSec;
            case P99 -> p99Us;
            case BYTES -> allocBytesPerOp;
        };
    }

    /**
     * Our figure divided by the peer's (see {@link #kind()}: above 1 is better for throughput, worse for a
     * latency or bytes); {@code null} when either is missing.
     */
    @Nullable Double ratioTo(String peer) {
        Double theirs = peers.get(peer);
        Double ours = figure();
        return ours == null || theirs == null || theirs == 0 ? null : ours / theirs;
    }

    /**
     * The peer that is this row's floor, what the same load costs without PulseBus (the do-nothing server or
     * bot, bare Netty): a peer named {@code bare_netty} or ending in {@code floor}; null when it has none.
     */
    @Nullable String floorPeer() {
        return peers.keySet().stream().filter(Row::isFloor).findFirst().orElse(null);
    }

    /** Whether a peer of this name is a row's floor ({@link #floorPeer()}). */
    static boolean isFloor(String peer) {
        return peer.equals("bare_netty") || peer.endsWith("floor");
    }
}
