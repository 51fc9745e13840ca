package dev.pulsebus.cluster;

import java.util.concurrent.ThreadLocalRandom;

/** The engines the cluster tests need, on this machine; a test whose server is absent is skipped saying why. */
final class Servers {

    static final int REDIS_PORT = 6379;
    static final int RABBITMQ_PORT = 5672;

    private Servers() {
    }

    /** Skips the calling test unless something listens on 127.0.0.1:{@code port}. */
    static void require(String what, int port, String who) {
        dev.pulsebus.testing.Listening.require(who, what, port);
    }

    /** A key prefix of one test's own, so runs never see each other's state. */
    static String prefix() {
        return "pulsebus-test:" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE) + ":";
    }
}
