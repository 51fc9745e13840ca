package dev.pulsebus.bench.startup;

import dev.pulsebus.bench.http.NoopServer;

/**
 * The peer of {@code startup.cold_to_ready}: a bare Netty HTTP server (the benchmark's do-nothing server,
 * same transport and codec as PulseBus) from a cold JVM until it listens; the startup suite then times its
 * first answer, as it does for PulseBus.
 */
public final class BareNetty {

    private BareNetty() {
    }

    public static void main(String[] args) throws Exception {
        NoopServer server = new NoopServer();
        System.out.println("Bare Netty is listening on " + server.url());
        System.out.flush();
        Thread.currentThread().join(); // until the suite stops the process
    }
}
