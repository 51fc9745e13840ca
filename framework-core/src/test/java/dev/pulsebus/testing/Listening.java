package dev.pulsebus.testing;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;

/** The servers a test needs on this machine (Redis, RabbitMQ, ...): a test whose server is absent is skipped. */
public final class Listening {

    private Listening() {
    }

    /**
     * Skips the calling test, printing why, unless something listens on 127.0.0.1:{@code port}.
     *
     * @param who  the test, named in the printed line
     * @param what the server expected there, named in the reason
     */
    public static void require(String who, String what, int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
        } catch (IOException e) {
            System.err.println("[pulsebus] " + who + " skipped: no " + what + " at 127.0.0.1:" + port + " (" + e + ")");
            assumeTrue(false, "no " + what + " at 127.0.0.1:" + port);
        }
    }
}
