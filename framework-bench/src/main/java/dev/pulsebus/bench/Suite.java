package dev.pulsebus.bench;

import java.util.List;

/** One suite of rows ({@code event}, later {@code router}, {@code storage}, ...), see BENCH.md. */
interface Suite {

    String name();

    List<Row> run(BenchOptions options) throws Exception;
}
