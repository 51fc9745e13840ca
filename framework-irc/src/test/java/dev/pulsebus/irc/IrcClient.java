package dev.pulsebus.irc;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A small IRC client for tests, on a plain socket: registers, answers PING, joins, says things, and hands
 * each line it reads (with its size on the wire and when it came) to {@link #await}.
 */
final class IrcClient implements AutoCloseable {

    /** A line read: parsed, its bytes on the wire (CR LF included), and when it was read. */
    record Received(IrcLine line, int wireBytes, long nanos) {
    }

    private final Socket socket;
    private final OutputStream out;
    private final BlockingQueue<Received> lines = new LinkedBlockingQueue<>();
    final String nick;

    private IrcClient(Socket socket, String nick) throws IOException {
        this.socket = socket;
        this.out = socket.getOutputStream();
        this.nick = nick;
        Thread.ofVirtual().name("irc-client-" + nick).start(this::read);
    }

    /** A client registered as {@code nick} on 127.0.0.1:{@code port}. */
    static IrcClient connect(int port, String nick) throws Exception {
        IrcClient c = new IrcClient(new Socket("127.0.0.1", port), nick);
        c.send("NICK " + nick);
        c.send("USER " + nick + " 0 * :test client");
        c.await(l -> l.command().equals("001"), Duration.ofSeconds(10));
        return c;
    }

    /** Joins {@code channel} and waits for the end of its names list. */
    IrcClient join(String channel) throws Exception {
        send("JOIN " + channel);
        await(l -> l.command().equals("366"), Duration.ofSeconds(10));
        return this;
    }

    void send(String line) throws IOException {
        synchronized (out) {
            out.write((line + "\r\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
        }
    }

    void privmsg(String target, String text) throws IOException {
        send("PRIVMSG " + target + " :" + text);
    }

    /** The next line matching {@code what}, those before it passed over; fails after {@code timeout}. */
    Received awaitReceived(Predicate<IrcLine> what, Duration timeout) throws InterruptedException {
        long until = System.nanoTime() + timeout.toNanos();
        while (true) {
            Received r = lines.poll(Math.max(0, until - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (r == null) {
                throw new AssertionError(nick + ": no such line within " + timeout);
            }
            if (what.test(r.line())) {
                return r;
            }
        }
    }

    IrcLine await(Predicate<IrcLine> what, Duration timeout) throws InterruptedException {
        return awaitReceived(what, timeout).line();
    }

    /** The next PRIVMSG from {@code from} to {@code target}. */
    IrcLine awaitPrivmsg(String from, String target, Duration timeout) throws InterruptedException {
        return await(l -> l.command().equals("PRIVMSG") && l.nick().equals(from) && l.param(0).equals(target),
                timeout);
    }

    private void read() {
        try {
            InputStream in = socket.getInputStream();
            IrcAdapter.LineReader r = new IrcAdapter.LineReader(in);
            while (true) {
                String line = r.readLine();
                long now = System.nanoTime();
                IrcLine l = IrcLine.parse(line);
                if (l == null) {
                    continue;
                }
                if (l.command().equals("PING")) {
                    send("PONG :" + l.last());
                }
                lines.add(new Received(l, line.getBytes(StandardCharsets.UTF_8).length + 2, now));
            }
        } catch (IOException e) {
            // closed
        }
    }

    @Override
    public void close() throws IOException {
        try {
            send("QUIT :done");
        } catch (IOException e) {
            // closed already
        }
        socket.close();
    }
}
