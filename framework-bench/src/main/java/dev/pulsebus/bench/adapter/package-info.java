/**
 * The {@code adapter} suite: the OneBot v11 adapter's decoder beside Jackson's tree and bare token walk, and
 * its reverse WebSocket against a real server, driven by a OneBot implementation's side written for the
 * benchmark ({@link dev.pulsebus.bench.adapter.OneBotLoad}: Netty's WebSocket client codec) beside a
 * do-nothing bot that answers at once ({@link dev.pulsebus.bench.adapter.InstantBot}), the floor.
 */
package dev.pulsebus.bench.adapter;
