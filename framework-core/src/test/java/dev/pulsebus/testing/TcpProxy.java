package dev.pulsebus.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A TCP relay to a local port that can refuse and sever connections on demand. */
public final class TcpProxy implements AutoCloseable {

    private final int target;
    private final ServerSocket server;
    private final List<Socket> open = new CopyOnWriteArrayList<>();
    private volatile boolean cut;

    public TcpProxy(int target) throws IOException {
        this.target = target;
        this.server = new ServerSocket();
        server.bind(new InetSocketAddress("127.0.0.1", 0));
        Thread.ofPlatform().daemon().start(this::accept);
    }

    public int port() {
        return server.getLocalPort();
    }

    /** Severs every connection it relays and refuses new ones, until {@link #restore}. */
    public void cut() {
        synchronized (open) { // a connection being set up now is either severed here or refused below
            cut = true;
            for (Socket s : open) {
                closeQuietly(s);
            }
            open.clear();
        }
    }

    public void restore() {
        cut = false;
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                if (cut) {
                    client.close();
                    continue;
                }
                Socket upstream = new Socket("127.0.0.1", target);
                synchronized (open) {
                    if (cut) { // cut while it was being set up: it would outlive the cut
                        closeQuietly(client);
                        closeQuietly(upstream);
                        continue;
                    }
                    open.add(client);
                    open.add(upstream);
                }
                pump(client, upstream);
                pump(upstream, client);
            } catch (IOException e) {
                // closed, or the upstream refused: the client sees a dropped connection
            }
        }
    }

    private void pump(Socket from, Socket to) {
        Thread.ofVirtual().start(() -> {
            byte[] buf = new byte[8192];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                for (int n; (n = in.read(buf)) >= 0; ) {
                    out.write(buf, 0, n);
                }
            } catch (IOException ignored) {
                // either side closed
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        });
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    @Override
    public void close() throws IOException {
        cut();
        server.close();
    }
}
