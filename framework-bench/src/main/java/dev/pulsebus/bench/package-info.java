/**
 * The benchmark's harness and suites: {@code BenchMain} runs the suites, each a set of rows with
 * peers; {@code Results}, {@code Table}, {@code HtmlReport} and {@code Comparison} write and compare
 * the figures.
 *
 * <p>It may import every PulseBus module, the core test jar's fixtures, JMH, Guava and Jackson, and
 * its own benchmark packages; no PulseBus module may import it.
 */
@org.jspecify.annotations.NullMarked
package dev.pulsebus.bench;
