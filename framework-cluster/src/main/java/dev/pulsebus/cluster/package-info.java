/**
 * Several PulseBus instances as one bot: inbound events through RabbitMQ to exactly one instance per chat
 * (a direct exchange over quorum queues, one per partition, with single active consumers), room wake-ups and clustered
 * events fanned out to every instance, and cooldowns, rate limits, quotas and the dedupe set shared in
 * Redis. Imports {@code bus}, {@code command}, {@code config}, {@code module}, {@code platform} (it implements
 * {@code InstanceMessaging}) and {@code internal} of the core; knows no HTTP, no database and no platform (the
 * server wires it in when {@code cluster.enabled}).
 */
@NullMarked
package dev.pulsebus.cluster;

import org.jspecify.annotations.NullMarked;
