/**
 * The {@code cluster} suite: events through RabbitMQ with one to three instances beside the same load on one
 * instance without a broker, and the command controls decided in Redis beside the router's own tables.
 */
package dev.pulsebus.bench.cluster;
