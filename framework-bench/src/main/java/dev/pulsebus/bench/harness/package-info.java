/**
 * The benchmark's harness: {@code BenchMain} runs the chosen suites, each a {@code Suite} of rows with
 * their peers; {@code Results}, {@code Table}, {@code HtmlReport} and {@code Comparison} write and compare
 * the figures; {@code ServerFixture} starts the servers the suites measure.
 *
 * <p>It may import the JDK, PulseBus (the server), JMH, HdrHistogram, Jackson and async-profiler's JFR converter; not the suites, which use it.
 */
package dev.pulsebus.bench.harness;
