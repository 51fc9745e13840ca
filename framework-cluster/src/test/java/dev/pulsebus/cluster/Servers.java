package dev.pulsebus.cluster;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.ThreadLocalRandom;

/** The engines the cluster tests need, on this machine; a test whose server is absent is skipped saying why. */
final class Servers {

    static final int REDIS_PORT = 6379;
    static final int RABBITMQ_PORT = 5672;

    private Servers() {
    }

    /** Skips the calling test unless something listens on 127.0.0.1:{@code port}. */
    static void require(String what, int port, String who) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
        } catch (IOException e) {
            System.err.println("[pulsebus] " + who + " skipped: no " + what + " at 127.0.0.1:" + port + " (" + e + ")");
            assumeTrue(false, "no " + what + " at 127.0.0.1:" + port);
        }
    }

    /** A key prefix of one test's own, so runs never see each other's state. */
    static String prefix() {
        return "pulsebus-test:" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE) + ":";
    }
}
