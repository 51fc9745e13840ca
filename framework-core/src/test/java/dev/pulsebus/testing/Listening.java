package dev.pulsebus.testing;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;

/**
 * The servers a test needs on this machine (Redis, RabbitMQ, ...): a test whose server is absent is skipped, or
 * fails when {@link Required} names it.
 */
public final class Listening {

    private Listening() {
    }

    /**
     * Skips the calling test, printing why, unless something listens on 127.0.0.1:{@code port}; fails it
     * instead when {@link Required} names the server.
     *
     * @param who  the test, named in the printed line
     * @param what the server expected there, named in the reason; lower-cased, the {@link Required} service
     */
    public static void require(String who, String what, int port) {
        String why = null;
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
        } catch (IOException e) {
            why = who + ": no " + what + " at 127.0.0.1:" + port + " (" + e + ")";
        }
        Required.service(what.toLowerCase(java.util.Locale.ROOT), why);
    }
}
