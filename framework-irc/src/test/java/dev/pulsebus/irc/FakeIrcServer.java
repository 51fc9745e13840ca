package dev.pulsebus.irc;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The server side of IRC connections, scripted by the test: for what ngIRCd cannot show (SASL, which it does
 * not speak; the bot's own send rate, which ngIRCd's fixed per-client limit of about three commands a second
 * would hide and slow to a minute). Each accepted connection is a {@link Conn}: the lines the client wrote,
 * each with when it was read, and a way to write to it.
 */
final class FakeIrcServer implements AutoCloseable {

    private final ServerSocket listener;
    private final BlockingQueue<Conn> accepted = new LinkedBlockingQueue<>();

    FakeIrcServer() throws IOException {
        listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().name("fake-irc-accept").start(() -> {
            try {
                while (true) {
                    accepted.add(new Conn(listener.accept()));
                }
            } catch (IOException e) {
                // closed
            }
        });
    }

    int port() {
        return listener.getLocalPort();
    }

    /** The next connection, within {@code timeout}. */
    Conn accept(Duration timeout) throws InterruptedException {
        Conn c = accepted.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (c == null) {
            throw new AssertionError("no connection within " + timeout);
        }
        return c;
    }

    /** The next connection if one comes within {@code timeout}, else null. */
    Conn acceptOrNull(Duration timeout) throws InterruptedException {
        return accepted.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() throws IOException {
        listener.close();
        for (Conn c; (c = accepted.poll()) != null; ) {
            c.close();
        }
    }

    /** One client connection. */
    static final class Conn implements AutoCloseable {
        record Line(String text, long nanos) {
        }

        private final Socket socket;
        private final OutputStream out;
        final BlockingQueue<Line> lines = new LinkedBlockingQueue<>();

        Conn(Socket socket) throws IOException {
            this.socket = socket;
            this.out = socket.getOutputStream();
            IrcAdapter.LineReader r = new IrcAdapter.LineReader(socket.getInputStream());
            Thread.ofVirtual().name("fake-irc-conn").start(() -> {
                try {
                    while (true) {
                        String l = r.readLine();
                        lines.add(new Line(l, System.nanoTime()));
                    }
                } catch (IOException e) {
                    lines.add(new Line("<closed>", System.nanoTime()));
                }
            });
        }

        /** The next line the client wrote, which must match {@code what} (lines before it are not passed over). */
        String expect(Predicate<String> what, Duration timeout) throws InterruptedException {
            Line l = next(timeout);
            if (!what.test(l.text())) {
                throw new AssertionError("unexpected line from the client: " + l.text());
            }
            return l.text();
        }

        String expect(String exact) throws InterruptedException {
            return expect(exact::equals, Duration.ofSeconds(10));
        }

        Line next(Duration timeout) throws InterruptedException {
            Line l = lines.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (l == null) {
                throw new AssertionError("the client wrote nothing within " + timeout);
            }
            return l;
        }

        /** The next line that matches, those before passed over. */
        Line await(Predicate<String> what, Duration timeout) throws InterruptedException {
            long until = System.nanoTime() + timeout.toNanos();
            while (true) {
                Line l = lines.poll(Math.max(0, until - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (l == null) {
                    throw new AssertionError("no such line from the client within " + timeout);
                }
                if (what.test(l.text())) {
                    return l;
                }
            }
        }

        void send(String line) throws IOException {
            synchronized (out) {
                out.write((line + "\r\n").getBytes(StandardCharsets.UTF_8));
                out.flush();
            }
        }

        /** Welcomes a client that registered as {@code nick} ({@code 001}). */
        void welcome(String nick) throws IOException {
            send(":irc.test 001 " + nick + " :Welcome to the test network " + nick);
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}
