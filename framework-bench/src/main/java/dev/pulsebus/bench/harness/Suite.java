package dev.pulsebus.bench.harness;

import java.util.List;

/** One suite of rows ({@code event}, later {@code router}, {@code storage}, ...), see BENCH.md. */
public interface Suite {

    String name();

    List<Row> run(BenchOptions options) throws Exception;
}
