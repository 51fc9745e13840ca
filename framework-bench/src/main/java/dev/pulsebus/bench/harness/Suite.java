package dev.pulsebus.bench.harness;

import java.util.List;

/** One suite of rows ({@code event}, {@code router}, {@code storage}, ...), run by {@link BenchMain}. */
public interface Suite {

    String name();

    List<Row> run(BenchOptions options) throws Exception;
}
